import { IntentMatcher, misreadExamples, type IntentContext } from '@assistant/tool-kit';
import { randomBytes } from 'node:crypto';
import { connectAsync, type MqttClient } from 'mqtt';
import type { DriverEnvironment } from '@assistant/tool-kit';
import { startHomeAssistant, type HomeAssistantFixture } from '../testing/home-assistant.fixture';
import { homeFamily } from './home.family';
import type { HomeDriver } from './home.driver';
import { homeAssistantProvider, mqttProvider } from './providers';
import { homeGetState } from './tools/home-get-state.tool';
import { homeListDevices } from './tools/home-list-devices.tool';
import { homeSetState } from './tools/home-set-state.tool';

/** The machine's Mosquitto (`tools/workspace/services/mqtt.sh` starts it in CI). */
const BROKER = process.env.ASSISTANT_TEST_MQTT_URL ?? 'mqtt://127.0.0.1:1883';
const env: DriverEnvironment = {
  deployment: 'self-hosted',
  allowPrivateHosts: [],
  localFolders: [],
  signal: new AbortController().signal,
};
const signal = new AbortController().signal;
const context = (driver: HomeDriver) => ({ driver, signal }) as never;

describe('Home Assistant (REST, against a fixture of its API)', () => {
  let ha: HomeAssistantFixture;
  let driver: HomeDriver;
  beforeAll(async () => {
    ha = await startHomeAssistant();
    driver = await homeAssistantProvider.open(
      { settings: { url: ha.url }, secrets: { token: ha.token } },
      env,
    );
  });
  afterAll(() => ha.close());

  it('tries the token before the connection is saved', async () => {
    await expect(homeAssistantProvider.test(driver, signal)).resolves.toBeUndefined();
    const wrong = await homeAssistantProvider.open(
      { settings: { url: ha.url }, secrets: { token: 'nope' } },
      env,
    );
    await expect(homeAssistantProvider.test(wrong, signal)).rejects.toThrow(
      'Home Assistant refused the token (401)',
    );
  });

  it('lists devices by their names, leaving out automations', async () => {
    const { devices } = await homeListDevices.handler({}, context(driver));
    expect(devices.map((d) => d.name)).toEqual([
      'Coffee Machine',
      'Kitchen Light',
      'Outside Temperature',
      'Thermostat',
    ]);
    expect(homeFamily.answer('home_list_devices', { devices })).toBe(
      'Your devices: Coffee Machine (off), Kitchen Light (on), Outside Temperature (7.5 °C) and Thermostat (set to 19°).',
    );
  });

  it('reads and changes a device found by the name a person uses', async () => {
    const light = await homeGetState.handler({ device: 'the kitchen lamp' }, context(driver));
    expect(light).toMatchObject({ id: 'light.kitchen', state: 'on' });
    const off = await homeSetState.handler({ device: 'kitchen light', state: 'off' }, context(driver));
    expect(off).toMatchObject({ id: 'light.kitchen', state: 'off' });
    expect(ha.calls.at(-1)).toEqual({ service: 'light.turn_off', data: { entity_id: 'light.kitchen' } });
    const warm = await homeSetState.handler({ device: 'thermostat', temperature: 21 }, context(driver));
    expect(homeFamily.answer('home_set_state', warm)).toBe('Done: the Thermostat is now set to 21°.');
  });

  it('says a switch Home Assistant still reports in its old state was asked, not switched', async () => {
    ha.unresponsive.add('switch.coffee_machine');
    try {
      const coffee = await homeSetState.handler({ device: 'coffee machine', state: 'on' }, context(driver));
      expect(coffee).toMatchObject({ state: 'off', confirmed: false, requested_state: 'on' });
      expect(homeFamily.answer('home_set_state', coffee)).toBe(
        'I sent the Coffee Machine the command to turn on, but it has not confirmed it: it last reported off.',
      );
    } finally {
      ha.unresponsive.delete('switch.coffee_machine');
    }
  });

  it('names the devices there are when asked for one that is not', async () => {
    await expect(homeGetState.handler({ device: 'garage door' }, context(driver))).rejects.toThrow(
      'there is no device called "garage door"; the devices are: Coffee Machine, Kitchen Light, Outside Temperature, Thermostat',
    );
  });
});

describe('MQTT (Home Assistant discovery and Zigbee2MQTT, on a real broker)', () => {
  const prefix = `assistant-test-${randomBytes(4).toString('hex')}`;
  const zigbee = `${prefix}-z2m`;
  let simulator: MqttClient;
  let driver: HomeDriver;

  beforeAll(async () => {
    simulator = await connectAsync(BROKER).catch((error: Error) => {
      throw new Error(
        `no MQTT broker at ${BROKER} (${error.message}); start one with tools/workspace/services/mqtt.sh`,
      );
    });
    const retained = { retain: true, qos: 1 } as const;
    // A light announced by Home Assistant discovery, plain payloads; and a Zigbee2MQTT plug, JSON payloads.
    await simulator.publishAsync(
      `${prefix}/light/hall/config`,
      JSON.stringify({
        name: 'Hallway Light',
        unique_id: 'hall_light',
        state_topic: `${prefix}-dev/hall/state`,
        command_topic: `${prefix}-dev/hall/set`,
      }),
      retained,
    );
    await simulator.publishAsync(`${prefix}-dev/hall/state`, 'OFF', retained);
    // A kettle that takes commands but never reports back.
    await simulator.publishAsync(
      `${prefix}/switch/kettle/config`,
      JSON.stringify({
        name: 'Kettle',
        unique_id: 'kettle',
        state_topic: `${prefix}-dev/kettle/state`,
        command_topic: `${prefix}-dev/kettle/set`,
      }),
      retained,
    );
    await simulator.publishAsync(`${prefix}-dev/kettle/state`, 'ON', retained);
    await simulator.publishAsync(
      `${zigbee}/bridge/devices`,
      JSON.stringify([
        { friendly_name: 'Coordinator', type: 'Coordinator' },
        { friendly_name: 'Desk Plug', type: 'Router', definition: { exposes: [{ type: 'switch' }] } },
      ]),
      retained,
    );
    await simulator.publishAsync(`${zigbee}/Desk Plug`, JSON.stringify({ state: 'ON', power: 12 }), retained);
    // The devices answer commands by reporting their new state, as real ones do.
    await simulator.subscribeAsync([`${prefix}-dev/hall/set`, `${zigbee}/Desk Plug/set`]);
    simulator.on('message', (topic, payload) => {
      if (topic === `${prefix}-dev/hall/set`)
        void simulator.publishAsync(`${prefix}-dev/hall/state`, payload.toString(), retained);
      if (topic === `${zigbee}/Desk Plug/set`) {
        const { state } = JSON.parse(payload.toString()) as { state: string };
        void simulator.publishAsync(
          `${zigbee}/Desk Plug`,
          JSON.stringify({ state, power: state === 'ON' ? 12 : 0 }),
          retained,
        );
      }
    });
    driver = await mqttProvider.open(
      {
        settings: mqttProvider.settings.parse({
          url: BROKER,
          discovery_prefix: prefix,
          zigbee2mqtt_topic: zigbee,
        }),
        secrets: {},
      },
      env,
    );
  });
  afterAll(async () => {
    await driver?.close?.();
    // Retained messages outlive the test unless cleared.
    for (const topic of [
      `${prefix}/light/hall/config`,
      `${prefix}-dev/hall/state`,
      `${prefix}/switch/kettle/config`,
      `${prefix}-dev/kettle/state`,
      `${zigbee}/bridge/devices`,
      `${zigbee}/Desk Plug`,
    ]) {
      await simulator?.publishAsync(topic, '', { retain: true });
    }
    await simulator?.endAsync();
  });

  it('learns the devices and their states from the retained messages', async () => {
    const { devices } = await homeListDevices.handler({}, context(driver));
    expect(devices).toEqual([
      expect.objectContaining({ name: 'Desk Plug', kind: 'switch', state: 'on', attributes: { power: 12 } }),
      expect.objectContaining({ name: 'Hallway Light', kind: 'light', state: 'off' }),
      expect.objectContaining({ name: 'Kettle', kind: 'switch', state: 'on' }),
    ]);
  });

  it('switches a discovered light and a Zigbee2MQTT plug, and reports their new state', async () => {
    const hall = await homeSetState.handler({ device: 'hallway light', state: 'on' }, context(driver));
    expect(hall).toMatchObject({ name: 'Hallway Light', state: 'on' });
    const plug = await homeSetState.handler({ device: 'desk plug', state: 'off' }, context(driver));
    expect(plug).toMatchObject({ name: 'Desk Plug', state: 'off', attributes: { power: 0 } });
  });

  it('says a change was sent but not confirmed when the device does not report back, never that it happened', async () => {
    const kettle = await homeSetState.handler({ device: 'kettle', state: 'off' }, context(driver));
    expect(kettle).toMatchObject({ name: 'Kettle', state: 'on', confirmed: false, requested_state: 'off' });
    const answer = homeFamily.answer('home_set_state', kettle);
    expect(answer).not.toMatch(/is now/);
    expect(answer).toBe(
      'I sent the Kettle the command to turn off, but it has not confirmed it: it last reported on.',
    );
    // A device that reports back is confirmed.
    const hall = await homeSetState.handler({ device: 'hallway light', state: 'off' }, context(driver));
    expect(hall).toMatchObject({ state: 'off', confirmed: true });
    expect(homeFamily.answer('home_set_state', hall)).toBe('Done: the Hallway Light is now off.');
  });

  it('refuses a broker that cannot be reached, with its reason', async () => {
    await expect(
      mqttProvider.open(
        { settings: mqttProvider.settings.parse({ url: 'mqtt://127.0.0.1:1' }), secrets: {} },
        env,
      ),
    ).rejects.toThrow(/the MQTT broker at mqtt:\/\/127\.0\.0\.1:1 refused/);
  });
});

describe('the home family', () => {
  it('understands every example of its intents', () => {
    expect(misreadExamples(homeFamily.intents!)).toEqual([]);
    const matcher = new IntentMatcher([homeFamily.intents!]);
    const context: IntentContext = {
      now: new Date(),
      timeZone: 'UTC',
      when: () => undefined,
      known: () => undefined,
      last: () => undefined,
    };
    expect(matcher.match('turn the hallway light off', context)?.action).toEqual({
      kind: 'tool',
      tool: 'home_set_state',
      input: { device: 'hallway light', state: 'off' },
    });
    // A question that ends in "on" switches nothing.
    expect(matcher.match('which floor is the office on', context)).toBeUndefined();
  });

  it('asks before changing a device, never before reading one', () => {
    expect(homeFamily.tools.filter((t) => t.side_effects).map((t) => t.name)).toEqual(['home_set_state']);
  });
});
