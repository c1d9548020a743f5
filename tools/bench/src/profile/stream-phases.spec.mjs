// How stream-profile.mjs reads a V8 CPU profile: the phase each sample goes to, and the measured window. On a
// fixed profile: no server needed.
import { describe, expect, it } from '@jest/globals';
import { OTHER_PHASE, phaseShares } from './stream-phases.mjs';

/** A profile of the stacks `stacks` (function names, outermost first), one sample each, 1 ms apart from 1000 µs. */
function profileOf(stacks) {
  const nodes = [{ id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [] }];
  const samples = [];
  for (const stack of stacks) {
    let parent = nodes[0];
    for (const name of stack) {
      let node = parent.children.map((id) => nodes[id - 1]).find((n) => n.callFrame.functionName === name);
      if (!node) {
        node = {
          id: nodes.length + 1,
          callFrame: { functionName: name, url: 'file.js', lineNumber: 0 },
          children: [],
        };
        nodes.push(node);
        parent.children.push(node.id);
      }
      parent = node;
    }
    samples.push(parent.id);
  }
  return { nodes, samples, startTime: 0, timeDeltas: samples.map(() => 1000) };
}

describe('the phase of a streamed query a sample is given to', () => {
  it("is the first phase a frame of its stack names: a write, a commit and the model's stream wherever they happen", () => {
    const { byPhase, total } = phaseShares(
      profileOf([
        ['processTicksAndRejections', 'connectionCorkNT', 'Writable.uncork', 'writev'],
        ['emitReadable_', 'onHttpSocketReadable', 'onEvent', 'push', 'eventJson'],
        ['emitReadable_', 'onHttpSocketReadable', 'onEvent', 'writeTogether'],
        ['parserOnHeadersComplete', 'parserOnIncoming', 'handler'],
        ['processTicksAndRejections', 'runMicrotasks', 'readContext', 'recall'],
        ['onHttpSocketReadable', '(garbage collector)'],
        ['processTimers', 'listOnTimeout', 'flush'],
        ['(program)'],
        ['(idle)'],
      ]),
    );
    expect(total).toBe(8);
    expect(Object.fromEntries(byPhase)).toEqual({
      'socket writes (writev)': 1,
      "the model's stream: chunk → event → frames": 1,
      'SQLite commits (question, answer, events)': 1,
      "the client's request (HTTP parser → handler)": 1,
      'promise continuations (rest of start and end)': 1,
      'GC (main thread)': 1,
      'timers and immediates': 1,
      [OTHER_PHASE]: 1,
    });
  });

  it('counts only the samples of the measured window, and no idle ones', () => {
    const stacks = [['(idle)'], ['writev'], ['writev'], ['(idle)'], ['writev']];
    // Samples at 1000, 2000, 3000, 4000 and 5000 µs.
    const { total, byFunction } = phaseShares(profileOf(stacks), 1500, 4500);
    expect(total).toBe(2);
    expect([...byFunction.get('socket writes (writev)')]).toEqual([['writev file.js:1', 2]]);
  });
});
