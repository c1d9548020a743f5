import { randomBytes } from 'node:crypto';
import { OperatorError } from '@assistant/contracts';
import type { Storage } from '@assistant/storage';
import { clientMetadataRefusal, isNativeApplication, redirectUriRefusal } from './client-metadata';

export interface RegisteredClient {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
}

/** A redirect URI a registered application may use (`redirectUriRefusal`), normalized. */
function checkRedirectUri(raw: string): string {
  const refusal = redirectUriRefusal(raw);
  if (refusal) throw new OperatorError(`--redirect-uri ${refusal}`);
  return new URL(raw).href;
}

/**
 * Pre-registers a third-party application (an operator's command): a public client doing the authorization code
 * flow with PKCE, allowed exactly these redirect URIs. Applications may also register themselves (RFC 7591).
 */
export async function registerClient(
  storage: Storage,
  input: { name?: string; redirectUris: string[] },
): Promise<RegisteredClient> {
  const name = input.name?.trim();
  if (!name) throw new OperatorError('--name is required: the name users see on the consent page');
  if (input.redirectUris.length === 0) throw new OperatorError('give at least one --redirect-uri');
  const redirectUris = input.redirectUris.map(checkRedirectUri);
  const refusal = clientMetadataRefusal({ client_name: name, redirect_uris: redirectUris });
  if (refusal) throw new OperatorError(refusal);
  const client = {
    client_id: `app_${randomBytes(12).toString('base64url')}`,
    client_name: name,
    redirect_uris: redirectUris,
    // An application's own scheme is a native application's redirect (the provider refuses it for a web one).
    ...(isNativeApplication(redirectUris) ? { application_type: 'native' } : {}),
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    client_id_issued_at: Math.floor(Date.now() / 1000),
  };
  await storage.oauth.upsert('Client', client.client_id, client);
  return { client_id: client.client_id, client_name: name, redirect_uris: client.redirect_uris };
}

/** Every registered application, by its own or by an operator. */
export async function listClients(storage: Storage): Promise<RegisteredClient[]> {
  return (await storage.oauth.all('Client')).map(({ payload }) => ({
    client_id: String(payload.client_id),
    client_name: String(payload.client_name ?? ''),
    redirect_uris: (payload.redirect_uris as string[]) ?? [],
  }));
}
