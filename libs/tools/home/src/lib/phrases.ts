import type { PhraseRule } from '@assistant/tool-kit';

export const homePhrases: PhraseRule[] = [
  {
    intent: 'home.switch',
    examples: [
      'turn off the kitchen light',
      'turn on the living room lamp',
      'switch on the fan',
      'turn the hallway light off',
    ],
    patterns: [/^(?:turn|switch) (on|off) (?:the )?(.+)$/i, /^(?:turn|switch) (?:the )?(.+?) (on|off)$/i],
    act: (m) => {
      const [state, device] = m[1] === 'on' || m[1] === 'off' ? [m[1], m[2]] : [m[2], m[1]];
      return { kind: 'tool', tool: 'home_set_state', input: { device, state: state.toLowerCase() } };
    },
    offers: {
      tool: 'home_set_state',
      can: 'switch your devices, once you confirm ("turn off the kitchen light")',
    },
  },
  {
    intent: 'home.temperature',
    examples: ['set the thermostat to 20 degrees', 'set the living room heating to 21.5'],
    patterns: [/^set (?:the )?(.+?) to (\d+(?:\.\d+)?)(?:\s*(?:degrees|°c?))?$/i],
    act: (m) => ({
      kind: 'tool',
      tool: 'home_set_state',
      input: { device: m[1], temperature: Number(m[2]) },
    }),
  },
  {
    intent: 'home.state',
    examples: ['is the hallway light on?', 'is the kitchen lamp off', "what's the state of the thermostat?"],
    patterns: [/^is (?:the )?(.+?) (?:on|off)\??$/i, /^what'?s the state of (?:the )?(.+?)\??$/i],
    act: (m) => ({ kind: 'tool', tool: 'home_get_state', input: { device: m[1] } }),
    offers: { tool: 'home_get_state', can: 'tell you how a device is ("is the hallway light on?")' },
  },
  {
    intent: 'home.list',
    examples: ['list my devices', 'what devices do I have?', 'show my lights'],
    patterns: [/^(?:list|show)(?: me)? my (?:devices|lights)\??$/i, /^what devices do i have\??$/i],
    act: () => ({ kind: 'tool', tool: 'home_list_devices', input: {} }),
    offers: { tool: 'home_list_devices', can: 'list your devices' },
  },
];
