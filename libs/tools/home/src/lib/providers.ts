import { z } from 'zod';
import {
  assertHostAllowed,
  connectionFetch,
  ConnectionTestError,
  loginNeutral,
  pinHost,
  type ProviderDefinition,
} from '@assistant/tool-kit';
import type { HomeDriver } from './home.driver';
import { HomeAssistant } from './home-assistant.driver';
import { MqttHome } from './mqtt.driver';

const haSettings = z.object({
  url: z.url({ protocol: /^https?$/ }).describe('Home Assistant, e.g. http://homeassistant.local:8123'),
});
const haSecrets = z.object({
  token: z.string().min(1).describe('a long-lived access token (your profile → Security)'),
});

export const homeAssistantProvider: ProviderDefinition<HomeDriver, typeof haSettings, typeof haSecrets> = {
  name: 'homeassistant',
  description: 'Home Assistant',
  settings: haSettings,
  secrets: haSecrets,
  open: async ({ settings, secrets }, env) => {
    await assertHostAllowed(new URL(settings.url).hostname, env);
    return new HomeAssistant(settings.url, secrets.token, connectionFetch(env));
  },
  test: async (driver, signal) => (driver as HomeAssistant).check(signal),
};

const mqttSettings = z.object({
  url: z
    .string()
    .regex(/^mqtts?:\/\/[^/\s]+$/, 'an mqtt:// or mqtts:// URL such as mqtt://broker.lan:1883')
    .describe('the broker, e.g. mqtt://broker.lan:1883 (mqtts:// for TLS)'),
  username: z.string().optional().describe('the user name on the broker, if it asks for one'),
  // Topics read on the broker once logged in: not where or as whom the connection logs in.
  discovery_prefix: loginNeutral(
    z.string().min(1).default('homeassistant').describe("Home Assistant's MQTT discovery prefix"),
  ),
  zigbee2mqtt_topic: loginNeutral(
    z.string().min(1).default('zigbee2mqtt').describe("Zigbee2MQTT's base topic"),
  ),
});
const mqttSecrets = z.object({
  password: z.string().optional().describe('the password on the broker, if it asks for one'),
});

export const mqttProvider: ProviderDefinition<HomeDriver, typeof mqttSettings, typeof mqttSecrets> = {
  name: 'mqtt',
  description: 'An MQTT broker (Home Assistant discovery, Zigbee2MQTT)',
  settings: mqttSettings,
  secrets: mqttSecrets,
  open: async ({ settings, secrets }, env) => {
    const broker = await pinHost(new URL(settings.url).hostname, env);
    try {
      return await MqttHome.connect({
        url: settings.url,
        broker,
        username: settings.username,
        password: secrets.password,
        discoveryPrefix: settings.discovery_prefix,
        zigbee2mqttTopic: settings.zigbee2mqtt_topic,
        signal: env.signal,
      });
    } catch (error) {
      throw new ConnectionTestError(
        `the MQTT broker at ${settings.url} refused: ${(error as Error).message}`,
      );
    }
  },
  // Connecting and subscribing was the test.
  test: async () => undefined,
};
