/**
 * `@assistant/client/local`: the self-hosted server's local credentials file and data directory (Node.js only:
 * it reads the file system). The server writes the file; `assistant chat` and other local tools read it.
 */
export {
  DEFAULT_BASE_URL,
  InvalidBaseUrlError,
  MissingTokenError,
  credentialsFileIn,
  defaultDataDir,
  readCredentials,
  resolveConnection,
  resolveDataDir,
  type ConnectionFlags,
  type Credentials,
  type ResolvedConnection,
  type SettingSource,
} from './lib/local-credentials';
