import type { MqttClient } from 'mqtt';
import type { PinnedHost } from '@assistant/tool-kit';
import {
  HomeError,
  requestedState,
  type ChangedDevice,
  type Device,
  type DeviceChange,
  type HomeDriver,
} from './home.driver';

/** Time for retained discovery and state messages to arrive after subscribing. */
const SETTLE_MS = 300;
/** How long a change waits for the device to report its new state. */
const ECHO_MS = 2_000;

interface Entity {
  device: Device;
  /** Where to send a change, and how. */
  command?: { topic: string; json: boolean; on: string; off: string };
  temperatureTopic?: string;
  stateTopic?: string;
  /** How many state messages it sent: a change is confirmed by one that comes after it. */
  reports: number;
}

type Config = Record<string, unknown>;

const KINDS = new Set(['light', 'switch', 'climate', 'sensor', 'binary_sensor', 'cover']);

/**
 * Devices over MQTT, as Home Assistant's MQTT discovery (`<prefix>/<component>/[<node>/]<object>/config`) and
 * Zigbee2MQTT (`<base>/bridge/devices`) announce them. One client per connection, kept open: it learns the
 * devices and their states from retained messages and keeps them current.
 */
export class MqttHome implements HomeDriver {
  private readonly entities = new Map<string, Entity>();
  private readonly settled: Promise<void>;

  private constructor(
    private readonly client: MqttClient,
    private readonly prefix: string,
    private readonly zigbeeBase: string,
  ) {
    client.on('message', (topic, payload) => this.receive(topic, payload.toString('utf8')));
    this.settled = new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  }

  static async connect(options: {
    url: string;
    /** Where to connect instead of the URL's host (the checked address on the hosted API), with the name for TLS. */
    broker?: PinnedHost;
    username?: string;
    password?: string;
    discoveryPrefix: string;
    zigbee2mqttTopic: string;
    signal: AbortSignal;
  }): Promise<MqttHome> {
    const { connectAsync } = await import('mqtt');
    const client = await connectAsync(options.url, {
      ...(options.broker ? { host: options.broker.host, servername: options.broker.servername } : {}),
      username: options.username,
      password: options.password,
      connectTimeout: 10_000,
      reconnectPeriod: 5_000,
      clientId: `assistant_${Math.random().toString(16).slice(2, 10)}`,
    });
    const home = new MqttHome(client, options.discoveryPrefix, options.zigbee2mqttTopic);
    await client.subscribeAsync([
      `${options.discoveryPrefix}/+/+/config`,
      `${options.discoveryPrefix}/+/+/+/config`,
      `${options.zigbee2mqttTopic}/bridge/devices`,
    ]);
    options.signal.addEventListener('abort', () => void home.close(), { once: true });
    return home;
  }

  async devices(): Promise<Device[]> {
    await this.settled;
    return [...this.entities.values()]
      .map((e) => ({ ...e.device }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async change(device: Device, change: DeviceChange, signal: AbortSignal): Promise<ChangedDevice> {
    const entity = this.entities.get(device.id);
    if (!entity) throw new HomeError(`${device.name} is gone`);
    const sent: Array<Promise<unknown>> = [];
    if (change.temperature !== undefined) {
      if (!entity.temperatureTopic) throw new HomeError(`${device.name} has no temperature to set`);
      sent.push(this.client.publishAsync(entity.temperatureTopic, String(change.temperature)));
    }
    if (change.state !== undefined || change.brightness !== undefined) {
      const command = entity.command;
      if (!command) throw new HomeError(`${device.name} cannot be switched`);
      const state = requestedState(entity.device, change) ?? 'on';
      const payload = command.json
        ? JSON.stringify({
            state: state === 'on' ? 'ON' : 'OFF',
            ...(change.brightness !== undefined ? { brightness: change.brightness } : {}),
          })
        : state === 'on'
          ? command.on
          : command.off;
      sent.push(this.client.publishAsync(command.topic, payload));
    }
    const wanted =
      change.state !== undefined || change.brightness !== undefined
        ? (requestedState(entity.device, change) ?? 'on')
        : undefined;
    const reportsBefore = entity.reports;
    await Promise.all(sent);
    // Confirmed only by a report that comes after the command (with the state asked for, when one was): the
    // state held before says nothing of whether the device heard it.
    const confirmed = () =>
      entity.reports > reportsBefore && (wanted === undefined || entity.device.state === wanted);
    const until = Date.now() + ECHO_MS;
    while (!confirmed() && Date.now() < until && !signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return {
      ...entity.device,
      confirmed: confirmed(),
      ...(wanted ? { requested_state: wanted } : {}),
    };
  }

  async close(): Promise<void> {
    await this.client.endAsync().catch(() => undefined);
  }

  private receive(topic: string, payload: string): void {
    if (topic === `${this.zigbeeBase}/bridge/devices`) return this.zigbeeDevices(payload);
    if (topic.startsWith(`${this.prefix}/`) && topic.endsWith('/config'))
      return this.discovered(topic, payload);
    for (const entity of this.entities.values()) {
      if (entity.stateTopic === topic) this.stateOf(entity, payload);
    }
  }

  /** A Home Assistant discovery message: a device's topics and payloads; an empty one removes it. */
  private discovered(topic: string, payload: string): void {
    const parts = topic.split('/');
    const component = parts[1];
    const id = parts.slice(2, -1).join('_');
    if (!payload) {
      this.entities.delete(id);
      return;
    }
    const config = parseJson(payload) as Config | undefined;
    if (!config || typeof config !== 'object') return;
    const stateTopic = stringOf(config['state_topic'] ?? config['stat_t']);
    const entity: Entity = {
      device: {
        id: stringOf(config['unique_id'] ?? config['uniq_id']) ?? id,
        name: stringOf(config['name']) ?? id,
        kind: (KINDS.has(component) ? component : 'other') as Device['kind'],
        attributes: {},
      },
      stateTopic,
      temperatureTopic: stringOf(config['temperature_command_topic']),
      reports: 0,
    };
    const commandTopic = stringOf(config['command_topic'] ?? config['cmd_t']);
    if (commandTopic) {
      entity.command = {
        topic: commandTopic,
        json: config['schema'] === 'json',
        on: stringOf(config['payload_on']) ?? 'ON',
        off: stringOf(config['payload_off']) ?? 'OFF',
      };
    }
    // Announced again: the reports it sent still count.
    entity.reports = this.entities.get(entity.device.id)?.reports ?? 0;
    this.entities.set(entity.device.id, entity);
    if (stateTopic) void this.client.subscribeAsync(stateTopic).catch(() => undefined);
  }

  /** Zigbee2MQTT's retained device list: each device's state is on `<base>/<name>`, changes go to `…/set`. */
  private zigbeeDevices(payload: string): void {
    const list = parseJson(payload);
    if (!Array.isArray(list)) return;
    for (const raw of list as Config[]) {
      const name = stringOf(raw['friendly_name']);
      if (!name || raw['type'] === 'Coordinator') continue;
      const exposes = JSON.stringify((raw['definition'] as Config | undefined)?.['exposes'] ?? []);
      const kind: Device['kind'] = exposes.includes('"light"')
        ? 'light'
        : exposes.includes('"switch"')
          ? 'switch'
          : 'sensor';
      const stateTopic = `${this.zigbeeBase}/${name}`;
      this.entities.set(name, {
        device: { id: name, name, kind, attributes: {} },
        stateTopic,
        command: { topic: `${stateTopic}/set`, json: true, on: 'ON', off: 'OFF' },
        reports: this.entities.get(name)?.reports ?? 0,
      });
      void this.client.subscribeAsync(stateTopic).catch(() => undefined);
    }
  }

  private stateOf(entity: Entity, payload: string): void {
    entity.reports++;
    const json = parseJson(payload);
    if (json && typeof json === 'object' && !Array.isArray(json)) {
      const { state, ...rest } = json as Config;
      if (typeof state === 'string') entity.device.state = onOff(state, entity);
      entity.device.attributes = { ...entity.device.attributes, ...rest };
    } else {
      entity.device.state = onOff(payload, entity);
    }
  }
}

function onOff(value: string, entity: Entity): string {
  if (value === (entity.command?.on ?? 'ON') || value === 'ON') return 'on';
  if (value === (entity.command?.off ?? 'OFF') || value === 'OFF') return 'off';
  return value;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}
