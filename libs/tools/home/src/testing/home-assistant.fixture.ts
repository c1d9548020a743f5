/**
 * A stand-in for Home Assistant, which cannot run here: an HTTP server that answers the documented REST API
 * (https://developers.home-assistant.io/docs/api/rest/) the way Home Assistant does — `GET /api/`,
 * `GET /api/states`, `GET /api/states/<entity_id>`, `POST /api/services/<domain>/<service>` with a long-lived
 * token — over a few entities whose states change as the services are called. Tests only.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface State {
  entity_id: string;
  state: string;
  attributes: Record<string, unknown>;
  last_changed: string;
}

export interface HomeAssistantFixture {
  url: string;
  token: string;
  states: Map<string, State>;
  /** Entities whose devices do not answer: a service call leaves their state as it was. */
  unresponsive: Set<string>;
  calls: Array<{ service: string; data: Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function startHomeAssistant(): Promise<HomeAssistantFixture> {
  const token = 'ha-long-lived-token';
  const now = new Date().toISOString();
  const states = new Map<string, State>(
    [
      {
        entity_id: 'light.kitchen',
        state: 'on',
        attributes: { friendly_name: 'Kitchen Light', brightness: 180 },
      },
      { entity_id: 'switch.coffee_machine', state: 'off', attributes: { friendly_name: 'Coffee Machine' } },
      {
        entity_id: 'climate.living_room',
        state: 'heat',
        attributes: { friendly_name: 'Thermostat', temperature: 19 },
      },
      {
        entity_id: 'sensor.outside',
        state: '7.5',
        attributes: { friendly_name: 'Outside Temperature', unit_of_measurement: '°C' },
      },
      { entity_id: 'automation.morning', state: 'on', attributes: { friendly_name: 'Morning routine' } },
    ].map((s) => [s.entity_id, { ...s, last_changed: now }]),
  );
  const calls: HomeAssistantFixture['calls'] = [];
  const unresponsive = new Set<string>();
  const server: Server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${token}`)
      return send(401, { message: 'Invalid authentication' });
    const url = new URL(req.url ?? '/', 'http://ha');
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (req.method === 'GET' && url.pathname === '/api/') return send(200, { message: 'API running.' });
      if (req.method === 'GET' && url.pathname === '/api/states') return send(200, [...states.values()]);
      const one = /^\/api\/states\/(.+)$/.exec(url.pathname);
      if (req.method === 'GET' && one) {
        const state = states.get(decodeURIComponent(one[1]));
        return state ? send(200, state) : send(404, { message: 'Entity not found.' });
      }
      const service = /^\/api\/services\/(\w+)\/(\w+)$/.exec(url.pathname);
      if (req.method === 'POST' && service) {
        const data = JSON.parse(body || '{}') as Record<string, unknown>;
        calls.push({ service: `${service[1]}.${service[2]}`, data });
        const state = states.get(String(data['entity_id']));
        if (!state) return send(400, { message: 'Entity not found' });
        if (unresponsive.has(state.entity_id)) return send(200, []);
        if (service[2] === 'turn_on') state.state = 'on';
        if (service[2] === 'turn_off') state.state = 'off';
        if (service[2] === 'toggle') state.state = state.state === 'on' ? 'off' : 'on';
        if (data['brightness'] !== undefined) state.attributes['brightness'] = data['brightness'];
        if (service[2] === 'set_temperature') state.attributes['temperature'] = data['temperature'];
        // Home Assistant answers a service call with the states that changed.
        return send(200, [state]);
      }
      send(404, { message: 'Not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token,
    states,
    unresponsive,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
