import { z } from 'zod';
import type { Scope } from './scopes';
import type { ErrorCode } from './error-codes';
import type { RateLimitResource } from './rate-limits';
import { pathMatcher } from './paths';
import { listEnvelopeSchema, pageQuerySchema, searchablePageQuerySchema } from './common';
import { accountSchema, updateAccountSchema } from './account';
import {
  createDiscussionSchema,
  discussionSchema,
  messageSchema,
  updateDiscussionSchema,
} from './discussions';
import { createMemorySchema, memorySchema, updateMemorySchema } from './memories';
import { createdTokenSchema, createTokenSchema, personalTokenSchema } from './tokens';
import { integrationListSchema } from './integrations';
import { protectedResourceMetadataSchema } from './oauth';
import {
  claimedDeviceSchema,
  claimPairingCodeSchema,
  createdPairingCodeSchema,
  deviceListSchema,
  pairingSchema,
} from './devices';
import { confirmationSchema, createQuerySchema, queryEventsQuerySchema, querySchema } from './queries';
import { queryEventSchema } from './events';
import { healthSchema, readinessSchema } from './health';
import { toolListSchema } from './tools';
import {
  connectionListSchema,
  connectionSchema,
  createConnectionSchema,
  updateConnectionSchema,
} from './connections';

/** What an endpoint answers on success: a JSON body (or none, for 204) or a stream of server-sent events. */
export interface EndpointResponse {
  status: 200 | 201 | 204;
  /** The JSON body, or each event's `data` for an event stream. None: an empty body or a free-form document. */
  schema?: z.ZodType;
  /** Default `application/json`. */
  contentType?: 'application/json' | 'text/event-stream';
}

/**
 * One route of the HTTP surface, declared once. The server takes its method, path, scope and request schemas
 * from here (and refuses to start if a route it serves differs); the client's methods and the OpenAPI document
 * are derived from it.
 */
export interface EndpointSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Relative to /api/v1 (to the server's root when `mount` is `root`), with `{param}` placeholders. */
  path: string;
  /** `root`: served outside /api/v1 (health checks that load balancers call). */
  mount?: 'api' | 'root';
  /** `null`: no bearer token needed. */
  scope: Scope | null;
  summary: string;
  tag: string;
  query?: z.ZodObject;
  body?: z.ZodType;
  response: EndpointResponse;
  errors: readonly ErrorCode[];
  /** The rate-limit bucket that counts it (SPEC §7): `core` unless said; `uncounted` for what monitors poll. */
  rateLimit?: RateLimitResource | 'uncounted';
}

/** A declared endpoint with its name, which is also its OpenAPI operationId and the client's method name. */
export type Endpoint = EndpointSpec & { operationId: string };

export const discussionListSchema = listEnvelopeSchema(discussionSchema).meta({ id: 'DiscussionList' });
export const messageListSchema = listEnvelopeSchema(messageSchema).meta({ id: 'MessageList' });
export const memoryListSchema = listEnvelopeSchema(memorySchema).meta({ id: 'MemoryList' });
export const tokenListSchema = listEnvelopeSchema(personalTokenSchema).meta({ id: 'PersonalTokenList' });

const read: ErrorCode[] = ['invalid_token', 'insufficient_scope', 'rate_limited'];
const one: ErrorCode[] = [...read, 'not_found'];
const list: ErrorCode[] = [...read, 'validation_failed'];
const write: ErrorCode[] = [...read, 'validation_failed', 'payload_too_large', 'unsupported_media_type'];

/** Every route, by operationId. Add a route here first; the server, the client and the document follow. */
export const ROUTES = {
  createQuery: {
    method: 'POST',
    path: '/queries',
    scope: 'write:queries',
    tag: 'queries',
    summary: 'Ask the assistant; the answer streams back as server-sent events (SPEC §4)',
    body: createQuerySchema,
    response: { status: 200, schema: queryEventSchema, contentType: 'text/event-stream' },
    errors: [...write, 'not_found', 'model_unavailable', 'service_unavailable'],
    rateLimit: 'queries',
  },
  getQuery: {
    method: 'GET',
    path: '/queries/{id}',
    scope: 'write:queries',
    tag: 'queries',
    summary: 'Where a query stands',
    response: { status: 200, schema: querySchema },
    errors: one,
  },
  queryEvents: {
    method: 'GET',
    path: '/queries/{id}/events',
    scope: 'write:queries',
    tag: 'queries',
    summary: 'The stream again: every event after Last-Event-ID (or ?after=), then live until the end',
    query: queryEventsQuerySchema,
    response: { status: 200, schema: queryEventSchema, contentType: 'text/event-stream' },
    errors: [...one, 'validation_failed'],
  },
  cancelQuery: {
    method: 'POST',
    path: '/queries/{id}/cancel',
    scope: 'write:queries',
    tag: 'queries',
    summary: 'Stop a running query; its stream ends with query.incomplete (cancelled)',
    response: { status: 200, schema: querySchema },
    errors: one,
  },
  confirmToolCall: {
    method: 'POST',
    path: '/queries/{id}/confirmations/{call_id}',
    scope: 'write:queries',
    tag: 'queries',
    summary:
      'Approve or refuse a side-effecting call that waits (tool_call.awaiting_confirmation); 409 if it was already answered',
    body: confirmationSchema,
    response: { status: 200, schema: querySchema },
    errors: [...write, 'not_found', 'conflict'],
  },
  listTools: {
    method: 'GET',
    path: '/tools',
    scope: 'read:tools',
    tag: 'tools',
    summary: 'The tool catalogue, with `active` for the tools this account has',
    response: { status: 200, schema: toolListSchema },
    errors: read,
  },
  listConnections: {
    method: 'GET',
    path: '/connections',
    scope: 'read:tools',
    tag: 'tools',
    summary:
      'The connections of this account (never their secrets), in the order they were added, then the defaults it has on this server',
    response: { status: 200, schema: connectionListSchema },
    errors: read,
  },
  createConnection: {
    method: 'POST',
    path: '/connections',
    scope: 'write:tools',
    tag: 'tools',
    summary: 'Add a connection; it is tried first, and a refusal is 422 connection_failed with the reason',
    body: createConnectionSchema,
    response: { status: 201, schema: connectionSchema },
    errors: [...write, 'connection_failed'],
  },
  updateConnection: {
    method: 'PATCH',
    path: '/connections/{id}',
    scope: 'write:tools',
    tag: 'tools',
    summary: 'Rename a connection or change its settings or secrets; a changed connection is tried again',
    body: updateConnectionSchema,
    response: { status: 200, schema: connectionSchema },
    errors: [...write, 'not_found', 'conflict', 'connection_failed'],
  },
  deleteConnection: {
    method: 'DELETE',
    path: '/connections/{id}',
    scope: 'write:tools',
    tag: 'tools',
    summary:
      'Remove a connection; its tools leave the account at once (a default connection cannot be removed)',
    response: { status: 204 },
    errors: [...one, 'conflict'],
  },
  getMe: {
    method: 'GET',
    path: '/me',
    scope: 'read:account',
    tag: 'account',
    summary: 'The calling account and token',
    response: { status: 200, schema: accountSchema },
    errors: read,
  },
  updateMe: {
    method: 'PATCH',
    path: '/me',
    scope: 'write:account',
    tag: 'account',
    summary: "Change the account's settings: the tools the assistant may use without asking first",
    body: updateAccountSchema,
    response: { status: 200, schema: accountSchema },
    errors: write,
  },
  listDiscussions: {
    method: 'GET',
    path: '/discussions',
    scope: 'read:discussions',
    tag: 'discussions',
    summary: 'List discussions, newest first; ?q= finds discussions whose title has every word',
    query: searchablePageQuerySchema,
    response: { status: 200, schema: discussionListSchema },
    errors: list,
  },
  createDiscussion: {
    method: 'POST',
    path: '/discussions',
    scope: 'write:discussions',
    tag: 'discussions',
    summary: 'Create a discussion',
    body: createDiscussionSchema,
    response: { status: 201, schema: discussionSchema },
    errors: write,
  },
  getDiscussion: {
    method: 'GET',
    path: '/discussions/{id}',
    scope: 'read:discussions',
    tag: 'discussions',
    summary: 'One discussion',
    response: { status: 200, schema: discussionSchema },
    errors: one,
  },
  renameDiscussion: {
    method: 'PATCH',
    path: '/discussions/{id}',
    scope: 'write:discussions',
    tag: 'discussions',
    summary: 'Rename a discussion',
    body: updateDiscussionSchema,
    response: { status: 200, schema: discussionSchema },
    errors: [...write, 'not_found'],
  },
  deleteDiscussion: {
    method: 'DELETE',
    path: '/discussions/{id}',
    scope: 'write:discussions',
    tag: 'discussions',
    summary: 'Delete a discussion with its messages',
    response: { status: 204 },
    errors: one,
  },
  listMessages: {
    method: 'GET',
    path: '/discussions/{id}/messages',
    scope: 'read:discussions',
    tag: 'discussions',
    summary: 'The messages of a discussion, oldest first',
    query: pageQuerySchema,
    response: { status: 200, schema: messageListSchema },
    errors: [...list, 'not_found'],
  },
  listMemories: {
    method: 'GET',
    path: '/memories',
    scope: 'read:memories',
    tag: 'memories',
    summary: 'List memories, newest first; ?q= is a full-text search that matches every word',
    query: searchablePageQuerySchema,
    response: { status: 200, schema: memoryListSchema },
    errors: list,
  },
  createMemory: {
    method: 'POST',
    path: '/memories',
    scope: 'write:memories',
    tag: 'memories',
    summary: 'Create a memory',
    body: createMemorySchema,
    response: { status: 201, schema: memorySchema },
    errors: write,
  },
  getMemory: {
    method: 'GET',
    path: '/memories/{id}',
    scope: 'read:memories',
    tag: 'memories',
    summary: 'One memory',
    response: { status: 200, schema: memorySchema },
    errors: one,
  },
  updateMemory: {
    method: 'PATCH',
    path: '/memories/{id}',
    scope: 'write:memories',
    tag: 'memories',
    summary: 'Edit a memory',
    body: updateMemorySchema,
    response: { status: 200, schema: memorySchema },
    errors: [...write, 'not_found'],
  },
  deleteMemory: {
    method: 'DELETE',
    path: '/memories/{id}',
    scope: 'write:memories',
    tag: 'memories',
    summary: 'Delete a memory',
    response: { status: 204 },
    errors: one,
  },
  listTokens: {
    method: 'GET',
    path: '/tokens',
    scope: 'write:account',
    tag: 'tokens',
    summary: 'List personal tokens (never their secrets)',
    query: pageQuerySchema,
    response: { status: 200, schema: tokenListSchema },
    errors: list,
  },
  createToken: {
    method: 'POST',
    path: '/tokens',
    scope: 'write:account',
    tag: 'tokens',
    summary: 'Create a personal token; the secret is in this reply only',
    body: createTokenSchema,
    response: { status: 201, schema: createdTokenSchema },
    errors: write,
  },
  revokeToken: {
    method: 'DELETE',
    path: '/tokens/{id}',
    scope: 'write:account',
    tag: 'tokens',
    summary: 'Revoke a personal token; its next use gets 401',
    response: { status: 204 },
    errors: one,
  },
  listIntegrations: {
    method: 'GET',
    path: '/integrations',
    scope: 'write:account',
    tag: 'tokens',
    summary: 'The third-party applications this account let in, their scopes and last use',
    response: { status: 200, schema: integrationListSchema },
    errors: read,
  },
  revokeIntegration: {
    method: 'DELETE',
    path: '/integrations/{client_id}',
    scope: 'write:account',
    tag: 'tokens',
    summary: 'Revoke an application in one step: every one of its tokens gets 401 from the next request on',
    response: { status: 204 },
    errors: one,
  },
  createPairingCode: {
    method: 'POST',
    path: '/pairing',
    scope: 'write:account',
    tag: 'devices',
    summary:
      'Create a pairing code for a phone: single-use, valid 10 minutes, shown in this reply only; the device gets the scopes of the calling token except write:account',
    response: { status: 201, schema: createdPairingCodeSchema },
    errors: read,
  },
  getPairingCode: {
    method: 'GET',
    path: '/pairing/{id}',
    scope: 'write:account',
    tag: 'devices',
    summary: 'Whether a pairing code still waits, was claimed (and by which device) or expired',
    response: { status: 200, schema: pairingSchema },
    errors: one,
  },
  claimPairingCode: {
    method: 'POST',
    path: '/pairing/claim',
    scope: null,
    tag: 'devices',
    summary:
      'A phone claims a pairing code (the code is the credential; no token) and gets a device token, shown in this reply only. A wrong, used or expired code is one and the same 422; counted in the auth rate limit',
    body: claimPairingCodeSchema,
    response: { status: 201, schema: claimedDeviceSchema },
    errors: ['rate_limited', 'validation_failed', 'payload_too_large', 'unsupported_media_type'],
    // The code is a credential: guessing must run out of tries long before it could find one.
    rateLimit: 'auth',
  },
  listDevices: {
    method: 'GET',
    path: '/devices',
    scope: 'write:account',
    tag: 'devices',
    summary: 'List paired devices (their tokens, never the secrets)',
    query: pageQuerySchema,
    response: { status: 200, schema: deviceListSchema },
    errors: list,
  },
  revokeDevice: {
    method: 'DELETE',
    path: '/devices/{id}',
    scope: 'write:account',
    tag: 'devices',
    summary: "Unpair a device: revoke its token; the token's next use gets 401",
    response: { status: 204 },
    errors: one,
  },
  getOpenApi: {
    method: 'GET',
    path: '/openapi.json',
    scope: null,
    tag: 'meta',
    summary: 'This document',
    response: { status: 200 },
    errors: ['rate_limited'],
  },
  getHealth: {
    method: 'GET',
    path: '/healthz',
    mount: 'root',
    scope: null,
    tag: 'meta',
    summary: 'Alive: the process serves (liveness; outside /api/v1, not rate-limited)',
    response: { status: 200, schema: healthSchema },
    errors: ['service_unavailable'],
    rateLimit: 'uncounted',
  },
  getReadiness: {
    method: 'GET',
    path: '/readyz',
    mount: 'root',
    scope: null,
    tag: 'meta',
    summary:
      'Ready for traffic: database reachable, schema current, Redis reachable where there is one, not shutting down (503 naming what is not; outside /api/v1, not rate-limited)',
    response: { status: 200, schema: readinessSchema },
    errors: ['service_unavailable'],
    rateLimit: 'uncounted',
  },
  getProtectedResourceMetadata: {
    method: 'GET',
    path: '/.well-known/oauth-protected-resource/api/v1',
    mount: 'root',
    scope: null,
    tag: 'meta',
    summary: "This API's protected resource metadata (RFC 9728), naming its authorization server",
    response: { status: 200, schema: protectedResourceMetadataSchema },
    errors: [],
  },
  getRootProtectedResourceMetadata: {
    method: 'GET',
    path: '/.well-known/oauth-protected-resource',
    mount: 'root',
    scope: null,
    tag: 'meta',
    summary: 'The same metadata where clients that do not insert the path look for it',
    response: { status: 200, schema: protectedResourceMetadataSchema },
    errors: [],
  },
} as const satisfies Record<string, EndpointSpec>;

export type OperationId = keyof typeof ROUTES;

/** The routes as a list, in declaration order. */
export const ENDPOINTS: readonly Endpoint[] = Object.entries(ROUTES).map(([operationId, spec]) => ({
  operationId,
  ...(spec as EndpointSpec),
}));

const matchers = ENDPOINTS.map((endpoint) => ({ endpoint, pattern: pathMatcher(endpoint) }));

/**
 * The declared endpoint that answers a concrete request, e.g. `GET /api/v1/memories/mem_1?limit=5`; undefined
 * if none does.
 */
export function findEndpoint(method: string, url: string): Endpoint | undefined {
  const path = url.split('?')[0].split('#')[0];
  const upper = method.toUpperCase();
  return matchers.find((m) => m.endpoint.method === upper && m.pattern.test(path))?.endpoint;
}
