import { z } from 'zod';
import { defineTool } from '@assistant/tool-kit';
import { findDevice, type HomeDriver } from '../home.driver';

export const homeGetState = defineTool<HomeDriver>()({
  name: 'home_get_state',
  description: 'The current state of one device, by its name ("kitchen light") or id.',
  input: z.object({ device: z.string().trim().min(1).max(200) }),
  scope: 'read:home',
  handler: async ({ device }, { driver, signal }) => findDevice(await driver.devices(signal), device),
});
