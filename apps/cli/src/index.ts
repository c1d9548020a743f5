import Serve from './commands/serve';
import Chat from './commands/chat';
import Pair from './commands/pair';
import AccountsAdd from './commands/accounts/add';
import AccountsLoginLink from './commands/accounts/login-link';
import Backup from './commands/backup';
import Restore from './commands/restore';
import Help from './commands/help';

/** What bin/run.js runs for any command but the plain forms of `chat` and `serve`: oclif, from this bundle. */
export { execute, handle } from '@oclif/core';

/** The commands of `assistant`, listed explicitly so that oclif needs no manifest or directory scan. */
export const COMMANDS = {
  serve: Serve,
  chat: Chat,
  pair: Pair,
  'accounts:add': AccountsAdd,
  'accounts:login-link': AccountsLoginLink,
  backup: Backup,
  restore: Restore,
  help: Help,
};
