import Serve from './commands/serve';
import AccountsAdd from './commands/accounts/add';

/** The commands of `assistant`, listed explicitly so that oclif needs no manifest or directory scan. */
export const COMMANDS = {
  serve: Serve,
  'accounts:add': AccountsAdd,
};
