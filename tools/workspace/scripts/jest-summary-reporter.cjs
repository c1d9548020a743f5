/**
 * A jest reporter that leaves the run's counts in $ASSISTANT_TEST_SUMMARY_DIR, so that the workspace test
 * command can print one closing line for every project's run together. Does nothing without that variable.
 */
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const dir = process.env.ASSISTANT_TEST_SUMMARY_DIR;
    if (!dir) return;
    mkdirSync(dir, { recursive: true });
    // A suite that failed to run (or crashed in its clean-up) counts once, unless jest already counted its tests
    // as failed: a set-up that threw fails each test of the suite, and counting the suite too counts it twice.
    const failedToRun = results.testResults.filter(
      (suite) => suite.testExecError && suite.numFailingTests === 0,
    ).length;
    writeFileSync(
      join(dir, `${process.pid}-${Date.now()}.json`),
      JSON.stringify({
        passed: results.numPassedTests,
        failed: results.numFailedTests + failedToRun,
        skipped: results.numPendingTests + results.numTodoTests,
      }),
    );
  }
}

module.exports = SummaryReporter;
