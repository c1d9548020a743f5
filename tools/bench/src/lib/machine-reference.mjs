// How fast the machine ran during a report, told by its floors: each floor is a bare program whose cost only the
// machine changes, so its figure against the same floor in a reference run says how much slower (or faster) this
// run's machine was. Ratios of ours to a floor move with it too — our larger working set pays more on a machine
// whose caches are shared with busier neighbours — so a verdict read on a slow machine says less about the code.

/**
 * The floors of the reference run: the report of 2026-11-27 (morning) on a quiet 2-core machine (AMD EPYC,
 * Node 20.20.2), in each row's own unit (lib/report.mjs figureRow's `floorValue`). `higherIsFaster`: a throughput.
 */
export const REFERENCE = {
  run: '2026-11-27 (morning, quiet)',
  floors: [
    { id: 'P3', metric: 'CPU per streamed token', what: "the relay's CPU per token", value: 35e-6 },
    {
      id: 'P5 (SQLite)',
      metric: 'GET /me',
      what: "P5's floor",
      value: 39_840,
      higherIsFaster: true,
    },
    { id: 'P10', metric: 'start-up', what: "bare Fastify's start-up", value: 163 },
  ],
};

/** Beyond this slowdown of its slowest floor, a run is not on a quiet machine. */
export const QUIET_SLOWDOWN = 1.3;

/**
 * How much slower each floor of `rows` ran than in the reference run (1.0: as fast; 2.0: twice as slow), and one
 * sentence for the report; undefined when none of the reference's floors was measured.
 */
export function machineSpeed(rows, reference = REFERENCE) {
  const floors = reference.floors.flatMap((floor) => {
    const measured = rows.find(
      (r) => r.id === floor.id && r.metric.includes(floor.metric) && Number.isFinite(r.floorValue),
    );
    if (!measured) return [];
    const slowdown = floor.higherIsFaster
      ? floor.value / measured.floorValue
      : measured.floorValue / floor.value;
    return [{ ...floor, slowdown }];
  });
  if (floors.length === 0) return undefined;
  const slowest = Math.max(...floors.map((f) => f.slowdown));
  const quiet = slowest <= QUIET_SLOWDOWN;
  const each = floors.map((f) => `${f.slowdown.toFixed(2)}× (${f.what})`).join(', ');
  return {
    floors,
    quiet,
    sentence:
      `the floors cost ${each} what they cost in the reference run of ${reference.run}: ` +
      (quiet
        ? `a quiet machine (every floor within ${QUIET_SLOWDOWN}×)`
        : `NOT a quiet machine (beyond ${QUIET_SLOWDOWN}×; ratios to floors read worse than on a quiet one)`),
  };
}
