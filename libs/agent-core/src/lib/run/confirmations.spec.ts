import { z } from 'zod';
import { connectTool, defineFamily, defineTool } from '@assistant/tool-kit';
import { runBuiltin } from '../../testing/run-builtin';
import type { ConfirmationOutcome, PendingCall } from './run-query';

/** A light switch: a side effect, so every call must be confirmed first. */
const switched: string[] = [];
const setState = defineTool()({
  name: 'home_set_state',
  description: 'switch a device',
  input: z.object({ device: z.string(), state: z.enum(['on', 'off']) }),
  scope: 'write:home',
  side_effects: true,
  handler: async ({ device, state }) => {
    switched.push(`${device} ${state}`);
    return { device, state };
  },
});
const home = defineFamily({
  name: 'home',
  description: 'devices',
  topic: { about: 'your devices', keywords: [] },
  providers: [],
  tools: [setState],
  phrases: [
    {
      intent: 'home.set',
      examples: ['turn on the lamp'],
      patterns: [/^turn (on|off) the (.+)$/i],
      act: (m) => ({ kind: 'tool', tool: 'home_set_state', input: { device: m[2], state: m[1] } }),
    },
  ],
  answer: (_tool, output) =>
    `The ${(output as { device: string }).device} is now ${(output as { state: string }).state}.`,
});

const ask = (text: string, confirm?: (call: PendingCall) => Promise<ConfirmationOutcome>) =>
  runBuiltin(text, [home], { tools: [connectTool(setState, null)], confirm });

beforeEach(() => (switched.length = 0));

describe('side-effecting calls wait for the user', () => {
  it('asks first, and acts only once approved', async () => {
    const asked: PendingCall[] = [];
    const events = await ask('turn on the lamp', async (call) => {
      asked.push(call);
      // Nothing has happened while the question is open.
      expect(switched).toEqual([]);
      return 'approved';
    });
    expect(events.map((e) => e.type).slice(0, 4)).toEqual([
      'query.created',
      'tool_call.started',
      'tool_call.awaiting_confirmation',
      'tool_call.completed',
    ]);
    expect(asked).toEqual([
      { callId: expect.any(String), tool: 'home_set_state', arguments: { device: 'lamp', state: 'on' } },
    ]);
    expect(switched).toEqual(['lamp on']);
    expect(events.at(-1)).toMatchObject({ type: 'query.completed', text: 'The lamp is now on.' });
  });

  it('never calls the tool when the user says no, and says so', async () => {
    const events = await ask('turn off the lamp', async () => 'denied');
    expect(switched).toEqual([]);
    expect(events.find((e) => e.type === 'tool_call.completed')).toMatchObject({
      status: 'denied',
      error: 'you did not approve it, so it was not done',
    });
    expect(events.filter((e) => e.type === 'tool_call.completed')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({
      type: 'query.completed',
      text: "I couldn't do that: you did not approve it, so it was not done.",
    });
  });

  it('refuses the call and ends the run when nobody answers in time', async () => {
    const events = await ask('turn on the lamp', async () => 'timeout');
    expect(switched).toEqual([]);
    expect(events.find((e) => e.type === 'tool_call.completed')).toMatchObject({ status: 'denied' });
    expect(events.at(-1)).toEqual({ type: 'query.incomplete', reason: 'confirmation_timeout' });
  });

  it('refuses every side effect when the run has no way to ask', async () => {
    const events = await ask('turn on the lamp');
    expect(switched).toEqual([]);
    expect(events.find((e) => e.type === 'tool_call.completed')).toMatchObject({ status: 'denied' });
  });

  it('does not ask about a tool the account allows without asking', async () => {
    const events = await runBuiltin('turn on the lamp', [home], {
      tools: [connectTool(setState, null)],
      autoApproved: ['home_set_state'],
      confirm: async () => {
        throw new Error('asked although allowed');
      },
    });
    expect(switched).toEqual(['lamp on']);
    expect(events.some((e) => e.type === 'tool_call.awaiting_confirmation')).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'query.completed', text: 'The lamp is now on.' });
  });
});
