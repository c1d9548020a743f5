import type { FamilyIntents, IntentContext, Learned } from '@assistant/tool-kit';
import type { Device } from './home.driver';

/**
 * What the built-in model understands of the smart home: sentence templates with slots (see the tool kit's
 * `intents.ts`). A device is looked up among the names the account's devices have shown ("kitchen lamp" finds
 * "Kitchen Lamp"); unknown, the words go to the tool, which matches names itself.
 */

function deviceOf(words: string | undefined, context: IntentContext): string | undefined {
  if (!words) return undefined;
  const device = words.replace(/^(?:the|my)\s+/i, '');
  return context.known('device', device) ?? device;
}

/** "which floor is the office on" is a question, not a device to switch. */
const QUESTION = /^(?:which|what|who|when|where|how|why|is|are|do|does|did|can|could|will|should)\b/i;

function setState(words: string | undefined, state: string, context: IntentContext) {
  if (!words || QUESTION.test(words)) return undefined;
  const device = deviceOf(words, context);
  return device ? { kind: 'tool' as const, tool: 'home_set_state', input: { device, state } } : undefined;
}

export const homeIntents: FamilyIntents = {
  rules: {
    turn: '(turn|switch|put|flip|set)',
    devices: '(devices|lights|lamps|switches|sensors|plugs|things|gadgets)',
  },
  intents: [
    {
      intent: 'home.switch',
      templates: [
        '<turn> {state} [the|my|all [the]] {device}',
        '<turn> [the|my] {device} {state}',
        '{device} {state}',
      ],
      examples: [
        'turn off the kitchen light',
        'turn on the living room lamp',
        'switch on the fan',
        'turn the hallway light off',
      ],
      act: (slots, context) => setState(slots['device'], (slots['state'] ?? '').toLowerCase(), context),
      offers: {
        tool: 'home_set_state',
        can: 'switch your devices, once you confirm ("turn off the kitchen light")',
      },
    },
    {
      intent: 'home.off',
      templates: ['(shut off|shut down|kill|cut|power off|power down|shut) [the|my] {device} [off]'],
      examples: ['shut off the heater', 'kill the lights'],
      act: (slots, context) => setState(slots['device'], 'off', context),
    },
    {
      intent: 'home.toggle',
      templates: ['toggle [the|my] {device}'],
      examples: ['toggle the desk lamp'],
      act: (slots, context) => setState(slots['device'], 'toggle', context),
    },
    {
      intent: 'home.temperature',
      templates: [
        '(set|put|turn|change) [the|my] {device} to {number} [degrees|degree|°|°c|c|celsius]',
        '(make|set|put) it {number} (degrees|°|°c|celsius) in [the] {device}',
      ],
      examples: ['set the thermostat to 20 degrees', 'set the living room heating to 21.5'],
      act: (slots, context) => {
        const device = deviceOf(slots['device'], context);
        const temperature = Number((slots['number'] ?? '').replace(',', '.'));
        if (!device || !Number.isFinite(temperature)) return undefined;
        if (/light|lamp|bulb/i.test(device) && !/heat|thermo/i.test(device)) return undefined;
        return { kind: 'tool', tool: 'home_set_state', input: { device, temperature } };
      },
    },
    {
      intent: 'home.brightness',
      templates: ['(dim|set|turn|put|brighten) [the|my] {device} to {number} (percent|%|pc)'],
      examples: ['dim the living room lights to 30%'],
      act: (slots, context) => {
        const device = deviceOf(slots['device'], context);
        const percent = Number(slots['number']);
        if (!device || !Number.isFinite(percent) || percent < 0 || percent > 100) return undefined;
        return {
          kind: 'tool',
          tool: 'home_set_state',
          input: { device, state: 'on', brightness: Math.round((percent * 255) / 100) },
        };
      },
    },
    {
      intent: 'home.state',
      templates: [
        '(is|are) [the|my] {device} (on|off|open|closed|running|locked|unlocked)',
        '(did|have) (i|we) (leave|left) [the|my] {device} (on|off|open|running)',
        '<whats> the (state|status) of [the|my] {device}',
        "(check|what is|whats|how is|how's) [the|my] {device} (status|state|doing|reading|set to)",
        '<whats> the (temperature|humidity|reading) (in|of|on) [the] {device}',
        'how (warm|cold|hot|humid) is [it in] [the] {device}',
      ],
      examples: [
        'is the hallway light on?',
        'is the kitchen lamp off',
        "what's the state of the thermostat?",
      ],
      act: (slots, context) => {
        const device = deviceOf(slots['device'], context);
        return device ? { kind: 'tool', tool: 'home_get_state', input: { device } } : undefined;
      },
      offers: { tool: 'home_get_state', can: 'tell you how a device is ("is the hallway light on?")' },
    },
    {
      intent: 'home.list',
      templates: [
        '(list|show|see) [me] [all] <my> [smart|home] <devices>',
        'what [smart] <devices> do (i|we) have',
        'what can you (control|switch|turn on|turn off)',
        'which <devices> are (on|off)',
      ],
      examples: ['list my devices', 'what devices do I have?', 'show my lights'],
      act: () => ({ kind: 'tool', tool: 'home_list_devices', input: {} }),
      offers: { tool: 'home_list_devices', can: 'list your devices' },
    },
  ],
  learn: (tool, output) => {
    if (tool === 'home_list_devices') {
      return ((output as { devices?: Device[] }).devices ?? []).map((d): Learned => ({
        kind: 'device',
        value: d.name,
      }));
    }
    const device = output as Device;
    return device?.name ? [{ kind: 'device', value: device.name }] : [];
  },
};
