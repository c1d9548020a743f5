/**
 * Test-only instrumentation for the soak suite, preloaded into a server process with
 * `NODE_OPTIONS="--expose-gc --require <this file>"`: on SIGUSR2 it runs a full garbage collection and writes the
 * process's memory as one `memory-probe {…}` line on stderr. Measuring after a full collection compares what is
 * still referenced, not how far the collector happens to be behind. Nothing of it is part of the product.
 */
'use strict';

process.on('SIGUSR2', () => {
  // Twice: the first collection can leave objects that only the finalizers of the first have released.
  global.gc();
  global.gc();
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  const resources = {};
  for (const type of process.getActiveResourcesInfo()) resources[type] = (resources[type] ?? 0) + 1;
  process.stderr.write(
    `memory-probe ${JSON.stringify({ rss, heapUsed, heapTotal, external, arrayBuffers, resources })}\n`,
  );
});
