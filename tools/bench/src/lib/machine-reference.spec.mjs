// How the report tells a quiet machine from a slow one (lib/machine-reference.mjs), on fixed rows.
import { describe, expect, it } from '@jest/globals';
import { machineSpeed, QUIET_SLOWDOWN } from './machine-reference.mjs';

const reference = {
  run: 'a reference day',
  floors: [
    { id: 'P3', metric: 'CPU per streamed token', what: 'relay CPU', value: 40e-6 },
    { id: 'P5 (SQLite)', metric: 'GET /me', what: 'P5 floor', value: 40_000, higherIsFaster: true },
  ],
};
const rows = (cpu, rps) => [
  { id: 'P3', metric: 'CPU per streamed token (server)', floorValue: cpu },
  { id: 'P3 (essential floor)', metric: 'CPU per streamed token (server)', floorValue: 1 },
  { id: 'P5 (SQLite)', metric: 'GET /me req/s (floor on an in-memory copy)', floorValue: rps },
];

describe('machineSpeed', () => {
  it("gives each floor's slowdown against the reference, a cost by its rise and a throughput by its fall", () => {
    const speed = machineSpeed(rows(80e-6, 20_000), reference);

    expect(speed.floors.map((f) => [f.what, f.slowdown])).toEqual([
      ['relay CPU', 2],
      ['P5 floor', 2],
    ]);
    expect(speed.quiet).toBe(false);
    expect(speed.sentence).toContain('NOT a quiet machine');
  });

  it(`calls a run quiet only when every floor is within ${QUIET_SLOWDOWN}× of the reference`, () => {
    expect(machineSpeed(rows(44e-6, 38_000), reference).quiet).toBe(true);
    expect(machineSpeed(rows(44e-6, 30_000), reference).quiet).toBe(false);
  });

  it('leaves out a floor the run did not measure, and says nothing without any', () => {
    const partial = machineSpeed([rows(40e-6, NaN)[0]], reference);
    expect(partial.floors.map((f) => f.what)).toEqual(['relay CPU']);
    expect(machineSpeed([], reference)).toBeUndefined();
  });
});
