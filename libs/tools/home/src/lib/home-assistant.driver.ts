import { ConnectionTestError } from '@assistant/tool-kit';
import {
  HomeError,
  requestedState,
  type ChangedDevice,
  type Device,
  type DeviceChange,
  type HomeDriver,
} from './home.driver';

interface HaState {
  entity_id: string;
  state: string;
  attributes: Record<string, unknown>;
}

const KINDS: Record<string, Device['kind']> = {
  light: 'light',
  switch: 'switch',
  climate: 'climate',
  sensor: 'sensor',
  binary_sensor: 'binary_sensor',
  cover: 'cover',
};
/** Domains a person may mean by "my devices"; automations, scripts, zones and the like are left out. */
const LISTED = new Set([...Object.keys(KINDS), 'fan', 'lock', 'media_player']);
const TIMEOUT_MS = 10_000;

/** Home Assistant's REST API (`/api/states`, `/api/services/<domain>/<service>`) with a long-lived token. */
export class HomeAssistant implements HomeDriver {
  constructor(
    private readonly url: string,
    private readonly token: string,
    /** The connection's own fetch (see `connectionFetch`): on the hosted API, to checked addresses only. */
    private readonly fetch: typeof globalThis.fetch = globalThis.fetch,
  ) {}

  /** `GET /api/`: Home Assistant answers `{"message": "API running."}` to a token it accepts. */
  async check(signal: AbortSignal): Promise<void> {
    const response = await this.request('GET', '/api/', undefined, signal);
    if (response.status === 401 || response.status === 403) {
      throw new ConnectionTestError('Home Assistant refused the token (401)');
    }
    if (!response.ok) throw new ConnectionTestError(`Home Assistant answered ${response.status}`);
  }

  async devices(signal: AbortSignal): Promise<Device[]> {
    const states = (await this.json('GET', '/api/states', undefined, signal)) as HaState[];
    return states
      .filter((s) => LISTED.has(s.entity_id.split('.')[0]))
      .map(deviceOf)
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async change(device: Device, change: DeviceChange, signal: AbortSignal): Promise<ChangedDevice> {
    const domain = device.id.split('.')[0];
    if (change.temperature !== undefined) {
      if (domain !== 'climate') throw new HomeError(`${device.name} has no temperature to set`);
      await this.json(
        'POST',
        '/api/services/climate/set_temperature',
        { entity_id: device.id, temperature: change.temperature },
        signal,
      );
    }
    if (change.state !== undefined || change.brightness !== undefined) {
      if (!['light', 'switch', 'fan', 'media_player'].includes(domain))
        throw new HomeError(`${device.name} cannot be switched`);
      const service = change.state === 'off' ? 'turn_off' : change.state === 'toggle' ? 'toggle' : 'turn_on';
      const data = {
        entity_id: device.id,
        ...(change.brightness !== undefined && service === 'turn_on'
          ? { brightness: change.brightness }
          : {}),
      };
      await this.json('POST', `/api/services/${domain}/${service}`, data, signal);
    }
    const after = deviceOf(
      (await this.json('GET', `/api/states/${encodeURIComponent(device.id)}`, undefined, signal)) as HaState,
    );
    // Home Assistant's state is what the device last reported to it: a state asked for and not there yet is
    // not confirmed.
    const wanted = change.state !== undefined ? requestedState(device, change) : undefined;
    return {
      ...after,
      confirmed: wanted === undefined || after.state === wanted,
      ...(wanted ? { requested_state: wanted } : {}),
    };
  }

  private async json(method: string, path: string, body: unknown, signal: AbortSignal): Promise<unknown> {
    const response = await this.request(method, path, body, signal);
    if (response.status === 401) throw new HomeError('Home Assistant refused the token');
    if (!response.ok) throw new HomeError(`Home Assistant answered ${response.status} to ${method} ${path}`);
    return response.json();
  }

  private async request(method: string, path: string, body: unknown, signal: AbortSignal): Promise<Response> {
    try {
      return await this.fetch(new URL(path, this.url), {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]),
        redirect: 'error',
      });
    } catch (error) {
      throw new ConnectionTestError(
        `Home Assistant at ${this.url} could not be reached (${(error as Error).message})`,
      );
    }
  }
}

function deviceOf(state: HaState): Device {
  const { friendly_name, ...attributes } = state.attributes;
  return {
    id: state.entity_id,
    name: typeof friendly_name === 'string' ? friendly_name : state.entity_id,
    kind: KINDS[state.entity_id.split('.')[0]] ?? 'other',
    state: state.state,
    attributes,
  };
}
