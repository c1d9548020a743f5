import { fakeMemoryFamily, fakeMemoryTools, type FakeMemory } from '../../testing/fake-memory-family';
import { runBuiltin } from '../../testing/run-builtin';
import type { RunAround } from './run-around';

describe('RunInput.around', () => {
  it('wraps each model call and each tool call that runs, in order, and hands back what they give', async () => {
    const seen: string[] = [];
    const around: RunAround = {
      modelCall: async (step, call) => {
        seen.push(`model ${step} start`);
        const result = await call();
        seen.push(`model ${step} end ${result.finishReason}`);
        return result;
      },
      toolCall: async (tool, call) => {
        seen.push(`tool ${tool} start`);
        const output = await call();
        seen.push(`tool ${tool} end`);
        return output;
      },
    };
    const memory: FakeMemory = { saved: [] };

    const events = await runBuiltin('remember that the gate code is 4711', [fakeMemoryFamily], {
      tools: fakeMemoryTools(memory),
      around,
    });

    expect(seen).toEqual([
      'model 1 start',
      'model 1 end tool-calls',
      'tool memory_save start',
      'tool memory_save end',
      'model 2 start',
      'model 2 end stop',
    ]);
    expect(memory.saved).toEqual(['the gate code is 4711']);
    expect(events.at(-1)).toMatchObject({ type: 'query.completed' });
  });
});
