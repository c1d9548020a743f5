import { z } from 'zod';
import { callTool } from './call-tool';
import { connectTool, defineTool } from './define-tool';

const context = () => ({
  userId: 'usr_1',
  discussionId: null,
  timeZone: 'UTC',
  signal: new AbortController().signal,
  notify: () => undefined,
});

/** A tool whose handler returns what `output` makes. */
const returning = (output: () => unknown) =>
  connectTool(
    defineTool()({
      name: 'custom_odd',
      description: 'd',
      input: z.object({}),
      scope: 'read:tools',
      handler: async () => output(),
    }),
    undefined,
  );

describe('callTool and what a tool gives back', () => {
  it('fails the call, with a message, when the output cannot be written as JSON', async () => {
    const circular: Record<string, unknown> = { name: 'a' };
    circular.self = circular;
    await expect(
      callTool(
        returning(() => circular),
        {},
        context(),
        1000,
      ),
    ).rejects.toThrow('custom_odd gave an output that cannot be sent as JSON: it refers to itself');
    await expect(
      callTool(
        returning(() => ({ n: 10n })),
        {},
        context(),
        1000,
      ),
    ).rejects.toThrow('custom_odd gave an output that cannot be sent as JSON: it holds a BigInt');
    const throwing = {
      toJSON() {
        throw new Error('no');
      },
    };
    await expect(
      callTool(
        returning(() => throwing),
        {},
        context(),
        1000,
      ),
    ).rejects.toThrow('custom_odd gave an output that cannot be sent as JSON: no');
    await expect(
      callTool(
        returning(() => () => 1),
        {},
        context(),
        1000,
      ),
    ).rejects.toThrow('custom_odd gave an output that cannot be sent as JSON: it is a function');
  });

  it('gives the output as plain JSON data, copied once: what the events say is what the model reads', async () => {
    let reads = 0;
    const output = {
      when: new Date('2026-01-02T03:04:05Z'),
      skipped: undefined,
      get count() {
        return ++reads;
      },
    };
    const given = await callTool(
      returning(() => output),
      {},
      context(),
      1000,
    );
    expect(given).toEqual({ when: '2026-01-02T03:04:05.000Z', count: 1 });
    expect(JSON.stringify(given)).toBe(JSON.stringify(given));
    expect(reads).toBe(1);
    expect(
      await callTool(
        returning(() => undefined),
        {},
        context(),
        1000,
      ),
    ).toBeUndefined();
    expect(
      await callTool(
        returning(() => 'text'),
        {},
        context(),
        1000,
      ),
    ).toBe('text');
  });
});
