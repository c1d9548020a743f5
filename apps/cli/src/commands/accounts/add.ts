import { Command, Flags } from '@oclif/core';

export default class AccountsAdd extends Command {
  static override summary = 'Add an account to this self-hosted server and print its first token.';

  static override description = `For a household that shares one server: creates another account beside the owner's and prints a personal token for it, once, as JSON. Each account sees only its own discussions and memories.

Runs against the data directory's database directly (the PostgreSQL database it was set up with, which it remembers, or its embedded one), so it works whether or not the server is running.

To let that person into their profile page (/profile) in a browser, run "assistant accounts login-link --email <email>" while the server runs: it prints a one-time sign-in link for them.`;

  static override examples = [
    {
      description: 'Add a member with every scope',
      command: '<%= config.bin %> <%= command.id %> --email sam@example.com --name Sam',
    },
    {
      description: 'Add an account that can only read and write memories',
      command:
        '<%= config.bin %> <%= command.id %> --email bot@localhost --scopes read:memories,write:memories',
    },
  ];

  static override flags = {
    email: Flags.string({
      required: true,
      summary: 'Email address of the new account.',
      helpValue: '<email>',
    }),
    name: Flags.string({
      summary: 'Display name (default: the part of the email before @).',
      helpValue: '<name>',
    }),
    scopes: Flags.string({
      summary: 'Comma-separated scopes of the printed token (default: all).',
      helpValue: '<a,b,…>',
    }),
    'data-dir': Flags.directory({
      summary: "The server's data directory (default $XDG_DATA_HOME/assistant).",
      helpValue: '<path>',
    }),
    'database-url': Flags.string({
      summary: "The server's PostgreSQL URL (default: the one the data directory was set up with).",
      helpValue: '<url>',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(AccountsAdd);
    const [{ addSelfHostAccount }, { describeStartupError }] = await Promise.all([
      import('@assistant/self-host'),
      import('@assistant/server'),
    ]);
    try {
      const account = await addSelfHostAccount({
        dataDir: flags['data-dir'],
        databaseUrl: flags['database-url'],
        email: flags.email,
        displayName: flags.name,
        scopes: flags.scopes,
      });
      this.log(JSON.stringify(account, null, 2));
    } catch (error) {
      this.logToStderr(describeStartupError(error));
      this.exit(1);
    }
  }
}
