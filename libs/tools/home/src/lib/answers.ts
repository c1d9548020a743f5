import { joinAnd } from '@assistant/tool-kit';
import type { ChangedDevice, Device } from './home.driver';

function stateOf(device: Device): string {
  if (device.kind === 'climate' && typeof device.attributes['temperature'] === 'number') {
    return `set to ${device.attributes['temperature']}°`;
  }
  if (device.state === undefined) return 'not reporting';
  const unit = device.attributes['unit_of_measurement'];
  return typeof unit === 'string' ? `${device.state} ${unit}` : device.state;
}

/** What the built-in model says once a home tool has answered. */
export function homeAnswer(tool: string, output: unknown): string {
  if (tool === 'home_list_devices') {
    const { devices } = output as { devices: Device[] };
    if (devices.length === 0) return 'I see no devices on this connection.';
    return `Your devices: ${joinAnd(devices.map((d) => `${d.name} (${stateOf(d)})`))}.`;
  }
  const device = output as Device;
  if (tool === 'home_set_state') return changeAnswer(device as ChangedDevice);
  return `The ${device.name} is ${stateOf(device)}.`;
}

/** Only a change the device reported is "done"; otherwise what is known: it was sent, and the last state. */
function changeAnswer(device: ChangedDevice): string {
  if (device.confirmed !== false) return `Done: the ${device.name} is now ${stateOf(device)}.`;
  const what = device.requested_state ? `the command to turn ${device.requested_state}` : 'the change';
  return `I sent the ${device.name} ${what}, but it has not confirmed it: it last reported ${stateOf(device)}.`;
}
