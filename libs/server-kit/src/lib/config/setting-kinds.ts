import { isIP } from 'node:net';
import { postgresConfigFromUrl, type DatabaseConfig } from '@assistant/storage';
import { z } from 'zod';

/**
 * The kinds of value a setting can take. Every setting arrives as text (an environment variable or a flag);
 * each kind checks that text and converts it. The message of a kind's error says what it accepts, worded to
 * follow "<NAME> must be …", so that a bad value reads `ASSISTANT_PORT must be a port number 0–65535 (got "abc")`.
 */

/** Whole numbers written plainly: no sign, exponent, decimals or spaces ("1e3", " 8", "8.0" are mistakes). */
const DIGITS = /^\d+$/;

/** Node's timers fire at once, with only a warning, past 2^31-1 ms; a timeout that long is a mistake anyway. */
export const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

export function wholeNumber(unit: string, min: number, max?: number) {
  const accepts =
    max === undefined
      ? `a whole number of ${unit} ≥ ${min}`
      : `a whole number of ${unit} from ${min} to ${max}`;
  return z
    .string()
    .refine(
      (text) => DIGITS.test(text) && Number(text) >= min && Number(text) <= (max ?? Number.MAX_SAFE_INTEGER),
      {
        error: accepts,
      },
    )
    .transform(Number);
}

/** A timeout or interval for a timer, in whole seconds. */
export const timerSeconds = wholeNumber('seconds', 1, MAX_TIMER_SECONDS);

export const port = z
  .string()
  .refine((text) => DIGITS.test(text) && Number(text) <= 65_535, { error: 'a port number 0–65535' })
  .transform(Number);

/** Where to listen: an IPv4 or IPv6 address (`::` for every interface) or a host name, as Node's listen takes it. */
export const listenAddress = z.union([z.ipv4(), z.ipv6(), z.hostname()], {
  error: 'an IP address (such as 127.0.0.1, 0.0.0.0 or ::1) or a host name',
});

/** Only the two words: `1`, `yes` or `on` could as well be a typo, and a proxy setting must not be guessed. */
export const trueOrFalse = z.stringbool({ truthy: ['true'], falsy: ['false'], error: 'true or false' });

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const logLevel = z.enum(LOG_LEVELS, { error: `one of ${LOG_LEVELS.join(', ')}` });

export const httpUrl = z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL' });

/** Redis: `redis://[:password@]host:6379[/db]`, or `rediss://` over TLS. */
export const smtpUrl = z.url({ protocol: /^smtps?$/, error: 'an smtp:// or smtps:// URL' });

export const emailAddress = z.email({ error: 'an email address, such as assistant@example.com' });

export const redisUrl = z.url({ protocol: /^rediss?$/, error: 'a redis:// or rediss:// URL' });

/** Any text; for names and keys whose meaning is checked later (a model name) or not at all (an API key). */
export const text = z.string();

/** An IANA time zone name that this Node knows (`Europe/Berlin`, `UTC`). */
export const timeZone = z.string().refine(
  (name) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: name });
      return true;
    } catch {
      return false;
    }
  },
  { error: 'an IANA time zone such as Europe/Berlin or UTC' },
);

/** Comma-separated names, blanks dropped: `ollama:llama3.2, openai:gpt-4o-mini`. */
export const nameList = z.string().transform((list) =>
  list
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean),
);

/** A host name, an IP address, or a network in CIDR form (`192.168.1.0/24`). */
function isHostOrNetwork(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (prefix === undefined)
    return family !== 0 || /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(entry);
  const bits = Number(prefix);
  return rest.length === 0 && family !== 0 && /^\d+$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}

/** Comma-separated host names, addresses and networks. */
export const hostList = nameList.refine((entries) => entries.every(isHostOrNetwork), {
  error: 'comma-separated host names, IP addresses or CIDR networks (such as 192.168.1.0/24)',
});

/**
 * A PostgreSQL URL, turned into the storage's configuration (the one place that reads its parts). `whyRequired`
 * is the reason given when the setting is required and missing.
 */
export function postgresUrl(whyRequired = 'a postgres:// URL') {
  return z.string({ error: whyRequired }).transform((url, context): DatabaseConfig => {
    try {
      return postgresConfigFromUrl(url);
    } catch {
      context.issues.push({
        code: 'custom',
        input: url,
        message: 'a postgres://user@host:5432/database URL, optionally with ?schema=<lower-case SQL name>',
      });
      return z.NEVER;
    }
  });
}

const KEY_MEANING = 'a base64-encoded 32-byte key (make one with `openssl rand -base64 32`)';

/** A 256-bit key, base64-encoded (`openssl rand -base64 32`). */
export const secretsKey = z
  .string({ error: KEY_MEANING })
  .refine((text) => /^[A-Za-z0-9+/]{43}=$/.test(text.trim()), {
    error: KEY_MEANING,
  })
  .transform((text) => Buffer.from(text.trim(), 'base64'));

/** Comma-separated absolute folder paths. */
export const folderList = nameList.refine((paths) => paths.every((path) => path.startsWith('/')), {
  error: 'comma-separated absolute folder paths (such as /srv/family-photos)',
});

/** Where a stand-in provider takes the place of Google's or Microsoft's, and the protocols' settings with it. */
const oauthOverride = z
  .object({
    endpoints: z
      .object({
        authorizationEndpoint: z.url({ protocol: /^https?$/ }),
        tokenEndpoint: z.url({ protocol: /^https?$/ }),
        revocationEndpoint: z.url({ protocol: /^https?$/ }).optional(),
      })
      .strict()
      .optional(),
    protocolSettings: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  })
  .strict();
const oauthOverridesSchema = z
  .object({ google: oauthOverride.optional(), microsoft: oauthOverride.optional() })
  .strict();

const parsedJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** JSON: `{"google": {"endpoints": {…}, "protocolSettings": {"email/imap-oauth": {…}}}}` (tests only). */
export const oauthOverrides = z
  .string()
  .refine((text) => oauthOverridesSchema.safeParse(parsedJson(text)).success, {
    error:
      'JSON such as {"google": {"endpoints": {"authorizationEndpoint": "http://…", "tokenEndpoint": "http://…"}, "protocolSettings": {"email/imap-oauth": {…}}}}',
  })
  .transform((text) => oauthOverridesSchema.parse(JSON.parse(text)));
