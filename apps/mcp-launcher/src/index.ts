export { main, launcherVersion } from './lib/main';
export { checkServer, type CheckServerOptions } from './lib/check-server';
export {
  EXIT_FAILURE,
  EXIT_USAGE,
  LauncherError,
  parseInvocation,
  USAGE,
  type Invocation,
} from './lib/options';
export { Relay, type RelayLogger, type RelayOptions } from './lib/relay';
