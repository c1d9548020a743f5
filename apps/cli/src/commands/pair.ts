import { networkInterfaces } from 'node:os';
import { Command, Flags } from '@oclif/core';
import type { AssistantClient, CreatedPairingCode, Pairing } from '@assistant/client';
import type { ResolvedConnection } from '@assistant/client/local';
import { isLoopback, tokenSource, unreachable, type ClientModule } from '../lib/request-failures';

/** How often the command asks whether a phone has claimed the code. */
const POLL_INTERVAL_MS = 1_000;

/** What `--json` prints, one object a line. */
type PairingEvent =
  | ({ type: 'pairing.created'; url: string } & CreatedPairingCode)
  | { type: 'pairing.claimed'; id: string; device: Pairing['device'] | null }
  | { type: 'pairing.expired'; id: string; expires_at: string };

export default class Pair extends Command {
  static override summary =
    'Pair a phone: show a one-time code and QR code, and wait until the phone claims it.';

  static override description = `Creates a pairing code on an Assistant server and shows it with a QR code of the web app's pairing page (<url>/app/pair#<code>); the phone's camera opens it, or you open that page and type the code, and the phone gets a device of its own, signed in to the web app. The code works once and for ten minutes. The device gets every scope of the token used here except write:account, so it cannot manage tokens or other devices.

The command waits until the phone has claimed the code, prints the device's name and exits 0; when the code expires first it says so and exits 1.

By default it talks to the server on this machine with the token that "assistant serve" wrote to <data-dir>/credentials.json, like "assistant chat". A phone cannot reach 127.0.0.1: start the server with "assistant serve --host 0.0.0.0" and give the address the phone can reach with --phone-url (it goes into the QR code).`;

  static override examples = [
    {
      description: 'Pair a phone with the local server, reachable on the home network',
      command: '<%= config.bin %> <%= command.id %> --phone-url http://192.168.1.20:7747',
    },
    {
      description: 'Pair with another server, using a personal token',
      command: '<%= config.bin %> <%= command.id %> --url https://assistant.example.com --token asp_…',
    },
    {
      description: 'Print each step as one JSON object a line (created, then claimed or expired)',
      command: '<%= config.bin %> <%= command.id %> --json | jq -c .',
    },
  ];

  static override flags = {
    json: Flags.boolean({
      summary: 'Print each step as one JSON object a line on stdout instead of the code and QR code.',
    }),
    'phone-url': Flags.string({
      summary: 'The server address the phone should use, put in the QR code (default: the server URL).',
      helpValue: '<url>',
    }),
    url: Flags.string({
      summary: 'The server (default: ASSISTANT_BASE_URL, else the local one).',
      helpValue: '<url>',
    }),
    token: Flags.string({
      summary:
        'The API token, with write:account (default: ASSISTANT_API_TOKEN, else the local credentials file).',
      helpValue: '<token>',
    }),
    'data-dir': Flags.directory({
      summary: 'The data directory whose credentials.json to use (default $XDG_DATA_HOME/assistant).',
      helpValue: '<path>',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Pair);
    const fail = (message: string): never => {
      process.stderr.write(`assistant: ${message}\n`);
      return this.exit(1);
    };

    // Loaded here, not at the top, so that `assistant --help` stays fast.
    const [lib, local] = await Promise.all([import('@assistant/client'), import('@assistant/client/local')]);
    let connection: ResolvedConnection;
    let client: AssistantClient;
    let phoneUrl: string;
    try {
      connection = local.resolveConnection({
        url: flags.url,
        token: flags.token,
        dataDir: flags['data-dir'],
      });
      client = new lib.AssistantClient({ baseUrl: connection.baseUrl, token: connection.token });
      phoneUrl = lib.normalizeBaseUrl(flags['phone-url'] ?? connection.baseUrl);
    } catch (error) {
      return fail(error instanceof Error ? error.message : String(error));
    }
    if (isLoopback(phoneUrl)) process.stderr.write(`assistant: warning: ${loopbackWarning(phoneUrl)}\n`);

    let created: CreatedPairingCode;
    try {
      created = await client.createPairingCode();
    } catch (error) {
      return fail(describe(lib, connection, error));
    }
    const emit = (event: PairingEvent) => this.log(JSON.stringify(event));
    if (flags.json) emit({ type: 'pairing.created', ...created, url: phoneUrl });
    else await this.showCode(created, phoneUrl);

    let pairing: Pairing;
    try {
      pairing = await waitWhileWaiting(client, created.id);
    } catch (error) {
      return fail(describe(lib, connection, error));
    }
    if (pairing.status === 'expired') {
      if (flags.json) emit({ type: 'pairing.expired', id: pairing.id, expires_at: pairing.expires_at });
      return fail(
        'the pairing code expired before a phone claimed it; run `assistant pair` again for a new one',
      );
    }
    if (flags.json) emit({ type: 'pairing.claimed', id: pairing.id, device: pairing.device ?? null });
    else
      this.log(
        pairing.device
          ? `Paired: "${pairing.device.name}" (${pairing.device.id}). Unpair it with DELETE /api/v1/devices/${pairing.device.id}.`
          : 'Paired: a phone claimed the code.',
      );
  }

  private async showCode(created: CreatedPairingCode, phoneUrl: string): Promise<void> {
    // A CommonJS module: under import() its exports arrive as the default export.
    const { default: qrcode } = await import('qrcode-terminal');
    const qr = await new Promise<string>((resolve) =>
      qrcode.generate(pairingPageUrl(phoneUrl, created.code), { small: true }, resolve),
    );
    const until = new Date(created.expires_at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    this.log(`Pairing code: ${created.code}  (works once, until ${until})\n`);
    this.log(qr);
    this.log(
      `Scan the QR code with the phone's camera: it opens the web app's pairing page with the code filled in. Or open ${phoneUrl}/app/pair on the phone and type the code.`,
    );
    this.log('Waiting for the phone… (Ctrl+C to stop; the code stays valid until it expires)');
  }
}

/**
 * What the QR code holds: the web app's pairing page, the code after `#` (a fragment is never sent to the
 * server, so the code stays out of its logs until the page claims it). A phone's camera opens it as a link.
 */
export function pairingPageUrl(phoneUrl: string, code: string): string {
  return `${phoneUrl}/app/pair#${code}`;
}

/** Polls the code until it is no longer waiting: claimed by a phone, or expired. */
async function waitWhileWaiting(client: AssistantClient, id: string): Promise<Pairing> {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    const pairing = await client.getPairingCode({ id });
    if (pairing.status !== 'waiting') return pairing;
  }
}

/** Why a loopback address is no use to a phone, and what to do instead, with this machine's address if it has one. */
function loopbackWarning(url: string): string {
  const port = new URL(url).port || '7747';
  const lan = Object.values(networkInterfaces())
    .flat()
    .find((iface) => iface && iface.family === 'IPv4' && !iface.internal)?.address;
  return `${url} is this machine only: a phone cannot reach it. Start the server with \`assistant serve --host 0.0.0.0\` and give the address the phone can reach with --phone-url http://${lan ?? "<this machine's address>"}:${port}`;
}

/** One line for a failed request: what went wrong and what to do about it. */
function describe(lib: ClientModule, connection: ResolvedConnection, error: unknown): string {
  const url = connection.baseUrl;
  const tokenFrom = tokenSource(connection);
  const offline = unreachable(lib, connection, error);
  if (offline) return offline;
  if (error instanceof lib.ApiRequestError) {
    if (error.status === 401)
      return `the server at ${url} refused the token from ${tokenFrom} (${error.detail})`;
    if (error.status === 403)
      return `the token from ${tokenFrom} lacks the write:account scope needed to pair a phone`;
    return error.detail;
  }
  return error instanceof Error ? error.message : String(error);
}
