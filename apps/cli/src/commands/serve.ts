import { Command, Flags } from '@oclif/core';

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
    port: Flags.string({ char: 'p', summary: 'Port to listen on (default 7747).', helpValue: '<port>' }),
    host: Flags.string({
      summary: 'Address to listen on (default 127.0.0.1, this machine only).',
      helpValue: '<address>',
    }),
    'data-dir': Flags.directory({
      summary: 'Where the database, credentials and tools live (default $XDG_DATA_HOME/assistant).',
      helpValue: '<path>',
    }),
    model: Flags.string({
      summary:
        'Default model: builtin, ollama:<model>, openai-compatible:<model>, openai:<model> or anthropic:<model>.',
      helpValue: '<model>',
    }),
    'database-url': Flags.string({
      summary: 'A postgres:// URL to use PostgreSQL instead of the embedded SQLite database.',
      helpValue: '<url>',
    }),
    tools: Flags.directory({
      summary:
        'A folder of custom tool modules, each `export default defineTool({...})` (default <data-dir>/tools).',
      helpValue: '<path>',
    }),
    'login-link': Flags.boolean({
      summary:
        'Print a fresh one-time sign-in link: from the server already running on the data directory (then exit), or start one.',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    // Loaded here, not at the top: `assistant --help` and other commands must not pay for booting Nest.
    const { startSelfHost, issueSelfHostSignInLink, closeOnSignals, describeStartupError } =
      await import('@assistant/server');
    if (flags['login-link']) {
      let link: string | null;
      try {
        link = await issueSelfHostSignInLink({
          dataDir: flags['data-dir'],
          databaseUrl: flags['database-url'],
        });
      } catch (error) {
        this.logToStderr(describeStartupError(error));
        this.exit(1);
      }
      if (link) {
        this.log(`Sign in (once, within 15 minutes): ${link}`);
        return;
      }
    }
    let server;
    try {
      server = await startSelfHost({
        port: flags.port,
        host: flags.host,
        dataDir: flags['data-dir'],
        databaseUrl: flags['database-url'],
        model: flags.model,
        tools: flags.tools,
      });
    } catch (error) {
      this.logToStderr(describeStartupError(error));
      this.exit(1);
    }
    closeOnSignals(server);
    const database = server.database === 'sqlite' ? 'embedded SQLite' : 'PostgreSQL';
    const lines = [
      `Assistant is running at ${server.url}`,
      `  data:        ${server.dataDir} (${database})`,
      `  credentials: ${server.credentialsFile}`,
      `  tools:       ${server.customTools.folder} (${server.customTools.tools.join(', ') || 'no custom tools yet'})`,
    ];
    if (server.createdOwner) lines.push('  First run: created the owner account and its token.');
    else if (server.issuedOwnerToken)
      lines.push('  Wrote a new owner token (the previous one was missing or revoked).');
    lines.push(
      `  Sign in (once, within 15 minutes): ${server.signInLink}`,
      `  Try: curl -H "Authorization: Bearer $(node -p 'require(process.argv[1]).token' ${server.credentialsFile})" ${server.url}/api/v1/me`,
      'Press Ctrl+C to stop.',
    );
    // One write, so that whoever reads the output gets the address and its details together.
    this.log(lines.join('\n'));
  }
}
