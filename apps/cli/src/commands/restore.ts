import { Args, Command, Flags } from '@oclif/core';

export default class Restore extends Command {
  static override summary = 'Put a backup back into an empty data directory.';

  static override description = `Fills a data directory that is empty or does not exist yet with a backup written by "assistant backup"; "assistant serve --data-dir <path>" then starts on it with the same accounts, tokens, discussions, memories, connections (their secrets open with the restored key), custom tools and files.

It refuses a data directory that holds anything (it names what is there) or that a running server uses, a backup of a format version this Assistant does not know, and any entry of the file that is not a plain file or folder of a data directory (links, absolute paths, paths with ..). Nothing is written unless the whole file is good.

A server on PostgreSQL (--database-url) is restored with pg_restore instead; docs/operations.md ("Backups") says how.`;

  static override examples = [
    {
      description: 'Restore into the default data directory, then start the server',
      command: '<%= config.bin %> <%= command.id %> ~/backups/assistant-2025-06-01.tar.gz && assistant serve',
    },
    {
      description: 'Restore into a new data directory',
      command: '<%= config.bin %> <%= command.id %> assistant.tar.gz --data-dir ~/assistant-restored',
    },
  ];

  static override args = {
    file: Args.string({ required: true, description: 'The backup file written by "assistant backup".' }),
  };

  static override flags = {
    'data-dir': Flags.directory({
      summary: 'The data directory to fill: empty or new (default $XDG_DATA_HOME/assistant).',
      helpValue: '<path>',
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Restore);
    const { restoreSelfHost, describeRestore, describeBackupError } = await import('@assistant/self-host');
    try {
      this.log(describeRestore(await restoreSelfHost(args.file, { dataDir: flags['data-dir'] })));
    } catch (error) {
      this.logToStderr(describeBackupError(error));
      this.exit(1);
    }
  }
}
