import { Args, Command, loadHelpClass } from '@oclif/core';

/**
 * `assistant help [command…]`: the same help as `--help`, for those who type it the other way round. oclif only
 * knows `--help` by itself; its help command lives in @oclif/plugin-help, which is this little over @oclif/core's
 * own help class, so it is written here instead of adding a plugin.
 */
export default class Help extends Command {
  static override summary = 'Show help for assistant or one of its commands.';

  static override examples = [
    { description: 'List the commands', command: '<%= config.bin %> help' },
    { description: 'Flags and examples of one command', command: '<%= config.bin %> help chat' },
  ];

  static override args = {
    command: Args.string({ description: 'The command to show help for (e.g. chat, accounts add).' }),
  };

  // `help accounts add`: a command of several words arrives as several arguments.
  static override strict = false;

  async run(): Promise<void> {
    const { argv } = await this.parse(Help);
    const HelpClass = await loadHelpClass(this.config);
    await new HelpClass(this.config, this.config.pjson.oclif.helpOptions).showHelp(argv as string[]);
  }
}
