import { z } from 'zod';
import { defineTool } from '@assistant/tool-kit';
import type { HomeDriver } from '../home.driver';

export const homeListDevices = defineTool<HomeDriver>()({
  name: 'home_list_devices',
  description:
    'List the smart-home devices (lights, switches, thermostats, sensors) with their current state.',
  input: z.object({}),
  scope: 'read:home',
  handler: async (_input, { driver, signal }) => ({ devices: (await driver.devices(signal)).slice(0, 200) }),
});
