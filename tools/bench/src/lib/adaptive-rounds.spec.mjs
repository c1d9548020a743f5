// The stopping rule of the perf report (lib/adaptive-rounds.mjs), on fixed samples: no timing involved.
import { describe, expect, it } from '@jest/globals';
import { adaptiveRounds, DEFAULT_RULE, judge, medianInterval, verdictText } from './adaptive-rounds.mjs';

/** A round function giving the next pair of `pairs` (cycling), and a clock that advances `msPerRound` per round. */
function scripted(pairs, msPerRound = 1000) {
  let clock = 0;
  return {
    now: () => clock,
    round: async (index) => {
      clock += msPerRound;
      return { figure: pairs[index % pairs.length] };
    },
  };
}

const ratioAtLeast = (limit) => ({ key: 'figure', compare: 'ratio', target: { op: '>=', limit } });
const rule = { ...DEFAULT_RULE, minRounds: 6, maxRounds: 20, budgetMs: 1e9, precision: 0.01 };

describe('the interval of the median', () => {
  it('is the lowest and highest of 6 values at 95% (96.9%), and ranks 2 and 8 of 9', () => {
    expect(medianInterval([5, 1, 4, 2, 6, 3])).toMatchObject({ low: 1, high: 6, median: 3.5, exact: true });
    expect(medianInterval([5, 1, 4, 2, 6, 3]).confidence).toBeCloseTo(1 - 2 / 64, 10);
    expect(medianInterval([9, 1, 8, 2, 7, 3, 6, 4, 5])).toMatchObject({
      low: 2,
      high: 8,
      median: 5,
      exact: true,
    });
  });

  it('cannot reach 95% with 5 values: the extremes, marked inexact, with the confidence they have', () => {
    const interval = medianInterval([1, 2, 3, 4, 5]);
    expect(interval).toMatchObject({ low: 1, high: 5, exact: false });
    expect(interval.confidence).toBeCloseTo(1 - 2 / 32, 10);
  });
});

describe('the verdict', () => {
  it('is UNDECIDED before the interval exists, however clear the values', () => {
    expect(judge([2, 2, 2, 2, 2], { op: '>=', limit: 1 }).verdict).toBe('UNDECIDED');
  });

  it('calls a narrow interval on the line by its median', () => {
    const values = [0.599, 0.6, 0.601, 0.6, 0.602, 0.603];
    expect(judge(values, { op: '>=', limit: 0.6 }, rule)).toMatchObject({ verdict: 'PASS', by: 'precision' });
    expect(judge(values, { op: '<=', limit: 0.6 }, rule)).toMatchObject({ verdict: 'MISS', by: 'precision' });
  });

  it('reads "UNDECIDED (spread ±x% after N rounds)"', () => {
    const judged = judge([0.5, 0.7, 0.55, 0.65, 0.5, 0.7], { op: '>=', limit: 0.6 }, rule);
    expect(verdictText(judged, 6)).toBe('UNDECIDED (spread ±17% after 6 rounds)');
  });
});

describe('adaptive rounds', () => {
  it('stop at the minimum when every round is clearly on the passing side', async () => {
    const { now, round } = scripted([
      { ours: 70, floor: 100 },
      { ours: 68, floor: 100 },
      { ours: 75, floor: 110 },
    ]);
    const result = await adaptiveRounds({ figures: [ratioAtLeast(0.6)], round, rule, now });

    expect(result).toMatchObject({ rounds: 6, stoppedBy: 'decided' });
    expect(result.figures.figure.judged).toMatchObject({ verdict: 'PASS', by: 'interval' });
    expect(result.figures.figure.values).toHaveLength(6);
  });

  it('stop at the minimum on a clear miss too', async () => {
    const { now, round } = scripted([{ ours: 3, floor: 1 }]);
    const figure = { key: 'figure', compare: 'difference', target: { op: '<=', limit: 1 } };
    const result = await adaptiveRounds({ figures: [figure], round, rule, now });

    expect(result).toMatchObject({ rounds: 6, stoppedBy: 'decided' });
    expect(result.figures.figure.judged.verdict).toBe('MISS');
  });

  it('run to the maximum on values straddling the line, and say UNDECIDED', async () => {
    const { now, round } = scripted([
      { ours: 50, floor: 100 },
      { ours: 70, floor: 100 },
    ]);
    const result = await adaptiveRounds({ figures: [ratioAtLeast(0.6)], round, rule, now });

    expect(result).toMatchObject({ rounds: 20, stoppedBy: 'max rounds' });
    expect(result.figures.figure.judged.verdict).toBe('UNDECIDED');
    expect(verdictText(result.figures.figure.judged, 20)).toBe('UNDECIDED (spread ±17% after 20 rounds)');
  });

  it('stop once the time budget is spent, past the minimum', async () => {
    const { now, round } = scripted(
      [
        { ours: 50, floor: 100 },
        { ours: 70, floor: 100 },
      ],
      10_000,
    );
    const result = await adaptiveRounds({
      figures: [ratioAtLeast(0.6)],
      round,
      rule: { ...rule, budgetMs: 75_000 },
      now,
    });

    expect(result).toMatchObject({ rounds: 8, stoppedBy: 'budget' });
  });

  it('go on while any figure of the round is undecided', async () => {
    let clock = 0;
    const result = await adaptiveRounds({
      figures: [ratioAtLeast(0.6), { ...ratioAtLeast(0.6), key: 'other' }],
      round: async (index) => {
        clock += 1;
        return { figure: { ours: 90, floor: 100 }, other: { ours: index % 2 ? 50 : 70, floor: 100 } };
      },
      rule,
      now: () => clock,
    });

    expect(result).toMatchObject({ rounds: 20, stoppedBy: 'max rounds' });
    expect(result.figures.figure.judged.verdict).toBe('PASS');
    expect(result.figures.other.judged.verdict).toBe('UNDECIDED');
  });

  it('run exactly the fixed count when asked, and count no round that gave a figure nothing', async () => {
    const { now, round } = scripted([
      { ours: 90, floor: 100 },
      { ours: NaN, floor: 100 },
      { ours: 80, floor: 0 },
    ]);
    const result = await adaptiveRounds({
      figures: [ratioAtLeast(0.6)],
      round,
      rule: { ...rule, fixed: 9 },
      now,
    });

    expect(result).toMatchObject({ rounds: 9, stoppedBy: 'fixed' });
    expect(result.figures.figure.values).toEqual([0.9, 0.9, 0.9]);
    expect(result.figures.figure.judged.verdict).toBe('UNDECIDED');
  });
});
