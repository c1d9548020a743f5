import { z } from 'zod';
import { defineTool } from '@assistant/tool-kit';
import { findDevice, type HomeDriver } from '../home.driver';

export const homeSetState = defineTool<HomeDriver>()({
  name: 'home_set_state',
  description:
    'Switch a device on or off, dim a light (brightness 0–255) or set a thermostat (temperature). The result is the device as it last reported; confirmed: false means the change was sent but the device has not reported it, so say so rather than that it is done.',
  input: z
    .object({
      device: z.string().trim().min(1).max(200),
      state: z.enum(['on', 'off', 'toggle']).optional(),
      brightness: z.number().int().min(0).max(255).optional(),
      temperature: z.number().min(5).max(35).optional(),
    })
    .refine((v) => v.state !== undefined || v.brightness !== undefined || v.temperature !== undefined, {
      message: 'say what to change: state, brightness or temperature',
    }),
  scope: 'write:home',
  side_effects: true,
  annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ device, ...change }, { driver, signal }) =>
    driver.change(findDevice(await driver.devices(signal), device), change, signal),
});
