/**
 * Exits as soon as stdout and stderr have taken what was written. Left to itself, Node waited another
 * 100–300 ms after a finished command (on a busy machine) for V8's background work — compilation and GC tasks
 * that it has no use for — before it ended.
 */
export function exitOnceWritten(code: number): void {
  let pending = 2;
  const written = () => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', written);
  process.stderr.write('', written);
}
