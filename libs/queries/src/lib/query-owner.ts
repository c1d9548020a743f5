import type { Principal } from '@assistant/auth';

/**
 * Whose a query is: the principal that started it (SECURITY B2). A personal or device token's queries are that
 * token's. An application's belong to its OAuth grant rather than to one access token: access tokens live 15
 * minutes and a refresh replaces them, and the next one must still resume the stream and answer the confirmations
 * that the previous one started. Any other token of the account — another app, another device, a narrower
 * personal token — is someone else.
 */
export function queryOwnerOf(principal: Pick<Principal, 'tokenId' | 'grantId'>): string {
  return principal.grantId ? `grant:${principal.grantId}` : `token:${principal.tokenId}`;
}

/**
 * Whether `principal` may read the query's status and events, answer its confirmations and cancel it: a query
 * of its account that it started. A query stored before owners were kept (no owner) stays the account's.
 */
export function mayUseQuery(
  query: { userId: string; owner: string },
  principal: Pick<Principal, 'userId' | 'tokenId' | 'grantId'>,
): boolean {
  return query.userId === principal.userId && (query.owner === '' || query.owner === queryOwnerOf(principal));
}
