/** A device as the home tools show it, whichever hub it comes from. */
export interface Device {
  /** Stable: the Home Assistant entity id, or the MQTT unique id / Zigbee2MQTT name. */
  id: string;
  name: string;
  kind: 'light' | 'switch' | 'climate' | 'sensor' | 'binary_sensor' | 'cover' | 'other';
  /** `on` / `off` for lights and switches, a reading for sensors; undefined until the device reported one. */
  state?: string;
  /** What else it reported: brightness, temperature, unit… */
  attributes: Record<string, unknown>;
}

/** What to change: switch it, dim it, set a target temperature. */
export interface DeviceChange {
  state?: 'on' | 'off' | 'toggle';
  /** 0–255, as Home Assistant counts. */
  brightness?: number;
  temperature?: number;
}

/**
 * A device after a change, as far as the hub knows within a moment. A change can be sent without the device ever
 * saying it happened (an MQTT device that does not report back): `state` is then the last one it reported, and
 * `confirmed` false, so that nobody is told the kettle is off when all that is known is that it was asked to be.
 */
export interface ChangedDevice extends Device {
  /** True when the device reported the change (its new state, when a state was asked for). */
  confirmed: boolean;
  /** The state asked for, a toggle resolved to on or off (when the state before was known). */
  requested_state?: 'on' | 'off';
}

/** What the home tools do through a connection: a Home Assistant server or an MQTT broker. */
export interface HomeDriver {
  devices(signal: AbortSignal): Promise<Device[]>;
  /** Changes a device and returns it as it is afterwards, and whether the change is confirmed. */
  change(device: Device, change: DeviceChange, signal: AbortSignal): Promise<ChangedDevice>;
  close?(): Promise<void>;
}

/** A device asked for that is not there, or a change it cannot make; in plain words. */
export class HomeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HomeError';
  }
}

const FILLER = /\b(the|my|a|an)\b/g;

function normalised(name: string): string {
  return name
    .toLowerCase()
    .replace(/[_-]/g, ' ')
    .replace(FILLER, ' ')
    .replace(/\blamp\b/g, 'light')
    .replace(/\blights\b/g, 'light')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The device a person means by a name: its id, or its name with articles ignored and "lamp" and "light" taken
 * as one word; a name matching nothing lists the names that exist.
 */
export function findDevice(devices: readonly Device[], wanted: string): Device {
  const target = normalised(wanted);
  const exact = devices.find((d) => d.id === wanted || normalised(d.name) === target);
  if (exact) return exact;
  const partial = devices.filter(
    (d) => normalised(d.name).includes(target) || target.includes(normalised(d.name)),
  );
  if (partial.length === 1) return partial[0];
  const names = (partial.length > 1 ? partial : devices).map((d) => d.name);
  throw new HomeError(
    partial.length > 1
      ? `"${wanted}" could be ${names.join(' or ')}; say which`
      : `there is no device called "${wanted}"; the devices are: ${names.join(', ') || 'none'}`,
  );
}

/** The state a change asks for: on or off, a toggle resolved against the state before (unknown: undefined). */
export function requestedState(device: Device, change: DeviceChange): 'on' | 'off' | undefined {
  if (change.state === 'toggle') {
    return device.state === 'on' ? 'off' : device.state === 'off' ? 'on' : undefined;
  }
  return change.state;
}
