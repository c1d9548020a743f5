import { Command } from '@oclif/core';
import { booleanFlag, directoryFlag, stringFlag } from '../lib/oclif-flags';
import { SERVE_FLAGS } from '../serve/serve-flags';

export default class Serve extends Command {
  static override summary = 'Start the self-hosted Assistant server.';

  static override description = `Serves the Assistant API (/api/v1) from this machine, by default on http://127.0.0.1:7747, keeping everything in one data directory with an embedded SQLite database.

On the first run it creates the owner account and writes an owner token to <data-dir>/credentials.json (readable by you only); "assistant chat" and other local tools use it. Give --database-url to keep the data in PostgreSQL instead.

After the address it prints a one-time sign-in link: open it in a browser to reach your profile page (/profile), where you manage tokens, devices and connections. The link works once, within 15 minutes. For a fresh one, run "assistant serve --login-link" with the same --data-dir (and --database-url): if the server already runs, it prints a new link and exits; otherwise it starts the server, which prints one.

Custom tools: every .js, .mjs or .cjs module in <data-dir>/tools (or the folder of --tools) that default-exports defineTool({...}) of @assistant/tool-kit is a tool named custom_<verb> for every account of this server, loaded at start and again whenever the folder changes. A module that cannot be loaded is skipped with one log line saying why. The README's "Custom tools" has an example.

Each flag can also be set by an environment variable, which the flag overrides: ASSISTANT_HOST, ASSISTANT_PORT, ASSISTANT_DATA_DIR, ASSISTANT_DATABASE_URL, ASSISTANT_MODEL, ASSISTANT_TOOLS_DIR. The other settings (log level, models, timeouts, rate limits) are environment variables only; the Configuration table of the README lists them all. A bad value stops the server with one line saying what the setting accepts.`;

  static override examples = [
    {
      description: 'Start on the defaults (127.0.0.1:7747, data in $XDG_DATA_HOME/assistant)',
      command: '<%= config.bin %> <%= command.id %>',
    },
    {
      description: 'Listen on every interface of this machine, on another port',
      command: '<%= config.bin %> <%= command.id %> --host 0.0.0.0 --port 8080',
    },
    {
      description: 'Keep the data somewhere else',
      command: '<%= config.bin %> <%= command.id %> --data-dir ~/assistant-data',
    },
    {
      description:
        'Print a fresh one-time sign-in link for the server already running on the default data directory',
      command: '<%= config.bin %> <%= command.id %> --login-link',
    },
    {
      description: 'Load custom tools from a folder of your own',
      command: '<%= config.bin %> <%= command.id %> --tools ~/assistant-tools',
    },
    {
      description: 'Use PostgreSQL instead of the embedded database',
      command: '<%= config.bin %> <%= command.id %> --database-url postgres://me@127.0.0.1:5432/assistant',
    },
  ];

  static override flags = {
    port: stringFlag(SERVE_FLAGS.port),
    host: stringFlag(SERVE_FLAGS.host),
    'data-dir': directoryFlag(SERVE_FLAGS['data-dir']),
    model: stringFlag(SERVE_FLAGS.model),
    'database-url': stringFlag(SERVE_FLAGS['database-url']),
    tools: directoryFlag(SERVE_FLAGS.tools),
    'login-link': booleanFlag(SERVE_FLAGS['login-link']),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    // Loaded here, not at the top: `assistant --help` and other commands must not pay for booting Nest.
    const { runServe } = await import('../serve/serve-run.js');
    const outcome = await runServe(flags);
    if (outcome.code !== 0) {
      this.logToStderr(outcome.message);
      this.exit(outcome.code);
    }
    this.log(outcome.output);
  }
}
