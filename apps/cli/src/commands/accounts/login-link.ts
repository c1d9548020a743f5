import { Command, Flags } from '@oclif/core';

export default class AccountsLoginLink extends Command {
  static override summary = 'Print a one-time sign-in link for an account of this self-hosted server.';

  static override description = `How a household member added with "assistant accounts add" (or the owner) reaches the profile page (/profile) in a browser: prints a link that signs in the account of that email, once, within 15 minutes. Hand it to that person only: whoever opens it is signed in as them.

The server must be running on the data directory (the link points at it); give the same --data-dir and --database-url it was started with. The owner's profile page can make such a link for a member too.`;

  static override examples = [
    {
      description: 'A sign-in link for a member of the household',
      command: '<%= config.bin %> <%= command.id %> --email sam@example.com',
    },
  ];

  static override flags = {
    email: Flags.string({
      required: true,
      summary: 'Email address of the account to sign in.',
      helpValue: '<email>',
    }),
    'data-dir': Flags.directory({
      summary: "The server's data directory (default $XDG_DATA_HOME/assistant).",
      helpValue: '<path>',
    }),
    'database-url': Flags.string({
      summary: "The server's PostgreSQL URL, if it uses one.",
      helpValue: '<url>',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(AccountsLoginLink);
    const [{ issueAccountSignInLink }, { describeStartupError }] = await Promise.all([
      import('@assistant/self-host'),
      import('@assistant/server'),
    ]);
    try {
      const link = await issueAccountSignInLink({
        dataDir: flags['data-dir'],
        databaseUrl: flags['database-url'],
        email: flags.email,
      });
      this.log(`Sign in as ${flags.email.trim()} (once, within 15 minutes): ${link}`);
    } catch (error) {
      this.logToStderr(describeStartupError(error));
      this.exit(1);
    }
  }
}
