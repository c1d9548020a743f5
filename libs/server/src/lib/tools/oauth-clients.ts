import {
  googleOAuthClient,
  microsoftOAuthClient,
  type OAuthClientCredentials,
  type OAuthClientDefinition,
  type ProviderDefinition,
} from '@assistant/tool-kit';
import { imapOAuthProvider } from '@assistant/tools-email';
import { caldavOAuthProvider, graphProvider } from '@assistant/tools-calendar';
import type { OAuthClientName, ServerConfig } from '@assistant/server-kit';

/** The OAuth clients this server knows, by the name stored with their connections. */
const DEFINITIONS: Record<OAuthClientName, OAuthClientDefinition> = {
  google: googleOAuthClient,
  microsoft: microsoftOAuthClient,
};

/**
 * The providers whose connections only "Connect Google" / "Connect Microsoft" make, by family: the catalogue
 * opens them, while the forms and `POST /connections` never offer them (they take no secrets, and their driver
 * needs the token source the server gives it).
 */
export const OAUTH_PROVIDERS: Readonly<Record<string, readonly ProviderDefinition[]>> = {
  email: [imapOAuthProvider as ProviderDefinition],
  calendar: [caldavOAuthProvider as ProviderDefinition, graphProvider as ProviderDefinition],
};

/** An OAuth client as configured on this server: its declaration (endpoints overridden in tests) and credentials. */
export interface ConfiguredOAuthClient {
  name: OAuthClientName;
  definition: OAuthClientDefinition;
  credentials: OAuthClientCredentials;
  /** The settings of a protocol's connection for the account that consented. */
  settingsOf(family: string, provider: string, email: string): Record<string, unknown>;
}

/** The clients the operator or owner configured, in a stable order (Google, then Microsoft). */
export function configuredOAuthClients(config: Pick<ServerConfig, 'oauthClients'>): ConfiguredOAuthClient[] {
  return (Object.keys(DEFINITIONS) as OAuthClientName[]).flatMap((name) => {
    const configured = config.oauthClients?.[name];
    if (!configured) return [];
    const definition = { ...DEFINITIONS[name], ...configured.endpoints };
    return [
      {
        name,
        definition,
        credentials: { clientId: configured.clientId, clientSecret: configured.clientSecret },
        settingsOf: (family: string, provider: string, email: string) => {
          const protocol = definition.speaks.find((p) => p.family === family && p.provider === provider);
          return {
            ...protocol?.settings({ email }),
            ...configured.protocolSettings?.[`${family}/${provider}`],
          };
        },
      },
    ];
  });
}
