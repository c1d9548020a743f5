import { Command, Flags } from '@oclif/core';

export default class Serve extends Command {
  static override summary = 'Start the self-hosted Assistant server.';

  static override description = `Serves the Assistant API (/api/v1) from this machine, by default on http://127.0.0.1:7747, keeping everything in one data directory with an embedded SQLite database.

On the first run it creates the owner account and writes an owner token to <data-dir>/credentials.json (readable by you only); "assistant chat" and other local tools use it. Give --database-url to keep the data in PostgreSQL instead.

Each flag can also be set by an environment variable, which the flag overrides: ASSISTANT_HOST, ASSISTANT_PORT, ASSISTANT_DATA_DIR, ASSISTANT_DATABASE_URL, ASSISTANT_MODEL. The other settings (log level, models, timeouts, rate limits) are environment variables only; the Configuration table of the README lists them all. A bad value stops the server with one line saying what the setting accepts.`;

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
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    // Loaded here, not at the top: `assistant --help` and other commands must not pay for booting Nest.
    const { startSelfHost, closeOnSignals, describeStartupError } = await import('@assistant/server');
    let server;
    try {
      server = await startSelfHost({
        port: flags.port,
        host: flags.host,
        dataDir: flags['data-dir'],
        databaseUrl: flags['database-url'],
        model: flags.model,
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
    ];
    if (server.createdOwner) lines.push('  First run: created the owner account and its token.');
    else if (server.issuedOwnerToken)
      lines.push('  Wrote a new owner token (the previous one was missing or revoked).');
    lines.push(
      `  Try: curl -H "Authorization: Bearer $(node -p 'require(process.argv[1]).token' ${server.credentialsFile})" ${server.url}/api/v1/me`,
      'Press Ctrl+C to stop.',
    );
    // One write, so that whoever reads the output gets the address and its details together.
    this.log(lines.join('\n'));
  }
}
