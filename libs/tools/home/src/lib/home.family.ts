import { defineFamily } from '@assistant/tool-kit';
import type { HomeDriver } from './home.driver';
import { homeAssistantProvider, mqttProvider } from './providers';
import { homeListDevices } from './tools/home-list-devices.tool';
import { homeGetState } from './tools/home-get-state.tool';
import { homeSetState } from './tools/home-set-state.tool';
import { homeIntents } from './intents';
import { homeAnswer } from './answers';

/** The smart home: Home Assistant, or devices on an MQTT broker. Changing a device needs the user's yes. */
export const homeFamily = defineFamily<HomeDriver>({
  name: 'home',
  description: 'Lights, switches and thermostats through Home Assistant or MQTT.',
  topic: {
    about: 'your lights and devices',
    keywords: ['light', 'lamp', 'thermostat', 'heating', 'blind', 'socket', 'device'],
  },
  providers: [homeAssistantProvider, mqttProvider],
  tools: [homeListDevices, homeGetState, homeSetState],
  intents: homeIntents,
  answer: homeAnswer,
});
