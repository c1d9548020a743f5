import { randomFillSync } from 'node:crypto';
import { ID_PREFIXES, type IdKind } from '@assistant/contracts';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

let lastTime = -1;
let lastRandom: number[] = [];

/**
 * Random bytes drawn from the system's generator 4 KiB at a time, 16 per millisecond that makes ids: a call of
 * the generator costs ~6 µs on Node 20, a pooled draw ~0.2 µs (measured in one process, 100,000 draws each).
 */
const randomPool = Buffer.alloc(4096);
let randomUsed = randomPool.length;

/** The next 16 random bytes of the pool, as 5-bit digits. */
function randomDigits(): number[] {
  if (randomUsed + 16 > randomPool.length) {
    randomFillSync(randomPool);
    randomUsed = 0;
  }
  const digits: number[] = [];
  for (let i = randomUsed; i < randomUsed + 16; i++) digits.push(randomPool[i] & 31);
  randomUsed += 16;
  return digits;
}

/**
 * A ULID-style identifier after its type prefix (`dsc_01j…`): 10 characters of millisecond time and 16 of
 * randomness, incremented within the same millisecond. Ids therefore sort in creation order, which is the
 * order of every list (newest first), and a cursor can be the last id seen.
 */
export function newId(kind: IdKind): string {
  const now = Date.now();
  if (now <= lastTime) {
    incrementRandom(lastRandom);
  } else {
    lastTime = now;
    lastRandom = randomDigits();
  }
  return `${ID_PREFIXES[kind]}_${encodeTime(lastTime)}${lastRandom.map((n) => CROCKFORD[n]).join('')}`;
}

/** Below every id of this kind made at `time` or later, and above every one made before: a range bound in SQL. */
export function idsBefore(kind: IdKind, time: Date): string {
  return `${ID_PREFIXES[kind]}_${encodeTime(time.getTime())}`;
}

function encodeTime(ms: number): string {
  let time = '';
  let t = ms;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time;
}

function incrementRandom(digits: number[]): void {
  for (let i = digits.length - 1; i >= 0; i--) {
    if (digits[i] < 31) {
      digits[i]++;
      return;
    }
    digits[i] = 0;
  }
}

const ID_PATTERN = /^[a-z]{3,4}_[0-9a-hjkmnp-tv-z]{26}$/;

export function isIdOf(kind: IdKind, value: string): boolean {
  return value.startsWith(`${ID_PREFIXES[kind]}_`) && ID_PATTERN.test(value);
}
