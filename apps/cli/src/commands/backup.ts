import { Args, Command, Flags } from '@oclif/core';

export default class Backup extends Command {
  static override summary = 'Write a backup of this self-hosted server into one file, while it runs.';

  static override description = `Writes one file (a gzip-compressed tar, readable by you only) with everything needed to bring the server back: a snapshot of its database, its secrets key (<data-dir>/secrets.key, which opens the connections' stored passwords), its credentials file, its custom tools, and every account's folder (<data-dir>/files). The folders are user data and go in by default; --without-files leaves them out (when they are large, or backed up some other way).

The server may keep running: the database is copied as it stood at one moment, in one read (SQLite's VACUUM INTO), without stopping it. Every write the server acknowledged before the backup began is in it; writes acknowledged while it runs may or may not be, but never half of one. Files in the folders are copied one by one as they are when read.

Whoever has the file has all the data and every stored password: keep it private, and away from the data directory's disk. "assistant restore" puts it back. A server on PostgreSQL (--database-url) is backed up with pg_dump instead; docs/operations.md ("Backups") says how.`;

  static override examples = [
    {
      description: 'Back up the server of the default data directory',
      command: '<%= config.bin %> <%= command.id %> ~/backups/assistant-$(date +%F).tar.gz',
    },
    {
      description: "Another data directory, without the accounts' folders",
      command:
        '<%= config.bin %> <%= command.id %> /mnt/backup/assistant.tar.gz --data-dir ~/assistant-data --without-files',
    },
  ];

  static override args = {
    file: Args.string({
      required: true,
      description: 'The backup file to write (e.g. assistant.tar.gz); one already there is replaced.',
    }),
  };

  static override flags = {
    'data-dir': Flags.directory({
      summary: "The server's data directory (default $XDG_DATA_HOME/assistant).",
      helpValue: '<path>',
    }),
    tools: Flags.directory({
      summary: "The server's custom tools folder, if it is not <data-dir>/tools (as given to serve --tools).",
      helpValue: '<path>',
    }),
    'without-files': Flags.boolean({
      summary: "Leave the accounts' folders (<data-dir>/files) out of the backup.",
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Backup);
    const { backupSelfHost, describeBackup, describeBackupError } = await import('@assistant/self-host');
    try {
      const result = await backupSelfHost(args.file, {
        dataDir: flags['data-dir'],
        tools: flags.tools,
        withoutFiles: flags['without-files'],
      });
      this.log(describeBackup(result));
    } catch (error) {
      this.logToStderr(describeBackupError(error));
      this.exit(1);
    }
  }
}
