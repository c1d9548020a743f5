import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import { AssistantClient } from '@assistant/client';
import { readCredentials, credentialsFileIn } from '@assistant/client/local';
import { BUILT, run, startServer, type ServerProcess } from './support/processes';

const BROKER = process.env.ASSISTANT_TEST_MQTT_URL ?? 'mqtt://127.0.0.1:1883';

/**
 * A home on the machine's real MQTT broker (Mosquitto), connected over the API and switched through
 * `assistant chat`, with the confirmation every change needs.
 */
describe('the smart home through a connection and a query', () => {
  const prefix = `assistant-e2e-${randomBytes(4).toString('hex')}`;
  let dataDir: string;
  let server: ServerProcess;
  let device: MqttClient;
  const chat = (...args: string[]) => run(BUILT.cli, ['chat', ...args], { ASSISTANT_DATA_DIR: dataDir });

  beforeAll(async () => {
    device = await connectAsync(BROKER).catch((error: Error) => {
      throw new Error(
        `no MQTT broker at ${BROKER} (${error.message}); start one with tools/workspace/services/mqtt.sh`,
      );
    });
    const retained = { retain: true, qos: 1 } as const;
    await device.publishAsync(
      `${prefix}/light/hall/config`,
      JSON.stringify({
        name: 'Hallway Light',
        unique_id: 'hall',
        state_topic: `${prefix}-dev/hall`,
        command_topic: `${prefix}-dev/hall/set`,
      }),
      retained,
    );
    await device.publishAsync(`${prefix}-dev/hall`, 'OFF', retained);
    await device.subscribeAsync(`${prefix}-dev/hall/set`);
    device.on(
      'message',
      (_topic, payload) => void device.publishAsync(`${prefix}-dev/hall`, payload.toString(), retained),
    );

    dataDir = mkdtempSync(join(tmpdir(), 'assistant-home-'));
    server = await startServer(BUILT.cli, ['serve', '--data-dir', dataDir, '--port', '0'], {});
  });
  afterAll(async () => {
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    for (const topic of [`${prefix}/light/hall/config`, `${prefix}-dev/hall`]) {
      await device?.publishAsync(topic, '', { retain: true });
    }
    await device?.endAsync();
  });

  it('connects the broker, reads a light, and switches it only once approved', async () => {
    const credentials = readCredentials(credentialsFileIn(dataDir))!;
    const client = new AssistantClient({ baseUrl: credentials.base_url, token: credentials.token });
    const before = await chat('is the hallway light on?');
    expect(before.stdout).toMatch(/^I have no tool for your lights and devices on this account/);

    const connection = await client.createConnection({
      body: {
        family: 'home',
        provider: 'mqtt',
        name: 'Home broker',
        settings: { url: BROKER, discovery_prefix: prefix },
      },
    });
    expect(connection).toMatchObject({ family: 'home', provider: 'mqtt', status: 'ok' });

    expect((await chat('is the hallway light on?')).stdout).toBe('The Hallway Light is off.\n');
    const refused = await chat('turn on the hallway light');
    expect(refused.stdout).toBe("I couldn't do that: you did not approve it, so it was not done.\n");
    expect((await chat('is the hallway light on?')).stdout).toBe('The Hallway Light is off.\n');

    const approved = await chat('--yes', 'turn on the hallway light');
    expect(approved.stdout).toBe('Done: the Hallway Light is now on.\n');
    expect((await chat('is the hallway light on?')).stdout).toBe('The Hallway Light is on.\n');
  });
});
