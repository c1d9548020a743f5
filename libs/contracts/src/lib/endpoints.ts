import { z } from 'zod';
import type { Scope } from './scopes';
import type { ErrorCode } from './problem';
import { listEnvelopeSchema, pageQuerySchema, searchablePageQuerySchema } from './common';
import { accountSchema } from './account';
import {
  createDiscussionSchema,
  discussionSchema,
  messageSchema,
  updateDiscussionSchema,
} from './discussions';
import { createMemorySchema, memorySchema, updateMemorySchema } from './memories';
import { createdTokenSchema, createTokenSchema, personalTokenSchema } from './tokens';
import { createQuerySchema, queryEventsQuerySchema, querySchema } from './queries';
import { queryEventSchema } from './events';

/**
 * The catalogue of the HTTP surface this version serves. The OpenAPI document is generated from it,
 * and the server checks at start-up that its routes and this list agree.
 */
export interface EndpointSpec {
  operationId: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Relative to /api/v1, with `{param}` placeholders. */
  path: string;
  /** `null`: no bearer token needed. */
  scope: Scope | null;
  summary: string;
  tag: string;
  query?: z.ZodObject;
  body?: z.ZodType;
  response: {
    status: 200 | 201 | 204;
    schema?: z.ZodType;
    contentType?: 'application/json' | 'text/event-stream';
  };
  errors: ErrorCode[];
}

export const discussionListSchema = listEnvelopeSchema(discussionSchema).meta({ id: 'DiscussionList' });
export const messageListSchema = listEnvelopeSchema(messageSchema).meta({ id: 'MessageList' });
export const memoryListSchema = listEnvelopeSchema(memorySchema).meta({ id: 'MemoryList' });
export const tokenListSchema = listEnvelopeSchema(personalTokenSchema).meta({ id: 'PersonalTokenList' });

const read: ErrorCode[] = ['invalid_token', 'insufficient_scope', 'rate_limited'];
const one: ErrorCode[] = [...read, 'not_found'];
const list: ErrorCode[] = [...read, 'validation_failed'];
const write: ErrorCode[] = [...read, 'validation_failed', 'payload_too_large', 'unsupported_media_type'];

export const ENDPOINTS: readonly EndpointSpec[] = [
  {
    operationId: 'createQuery',
    method: 'POST',
    path: '/queries',
    scope: 'write:queries',
    tag: 'queries',
    summary: 'Ask the assistant; the answer streams back as server-sent events (SPEC §4)',
    body: createQuerySchema,
    response: { status: 200, schema: queryEventSchema, contentType: 'text/event-stream' },
    errors: [...write, 'not_found', 'model_unavailable'],
  },
  {
    operationId: 'getQuery',
    method: 'GET',
    path: '/queries/{id}',
    scope: 'write:queries',
    tag: 'queries',
    summary: 'Where a query stands',
    response: { status: 200, schema: querySchema },
    errors: one,
  },
  {
    operationId: 'queryEvents',
    method: 'GET',
    path: '/queries/{id}/events',
    scope: 'write:queries',
    tag: 'queries',
    summary: 'The stream again: every event after Last-Event-ID (or ?after=), then live until the end',
    query: queryEventsQuerySchema,
    response: { status: 200, schema: queryEventSchema, contentType: 'text/event-stream' },
    errors: [...one, 'validation_failed'],
  },
  {
    operationId: 'cancelQuery',
    method: 'POST',
    path: '/queries/{id}/cancel',
    scope: 'write:queries',
    tag: 'queries',
    summary: 'Stop a running query; its stream ends with query.incomplete (cancelled)',
    response: { status: 200, schema: querySchema },
    errors: one,
  },
  {
    operationId: 'getMe',
    method: 'GET',
    path: '/me',
    scope: 'read:account',
    tag: 'account',
    summary: 'The calling account and token',
    response: { status: 200, schema: accountSchema },
    errors: read,
  },
  {
    operationId: 'listDiscussions',
    method: 'GET',
    path: '/discussions',
    scope: 'read:discussions',
    tag: 'discussions',
    summary: 'List discussions, newest first; ?q= finds discussions whose title has every word',
    query: searchablePageQuerySchema,
    response: { status: 200, schema: discussionListSchema },
    errors: list,
  },
  {
    operationId: 'createDiscussion',
    method: 'POST',
    path: '/discussions',
    scope: 'write:discussions',
    tag: 'discussions',
    summary: 'Create a discussion',
    body: createDiscussionSchema,
    response: { status: 201, schema: discussionSchema },
    errors: write,
  },
  {
    operationId: 'getDiscussion',
    method: 'GET',
    path: '/discussions/{id}',
    scope: 'read:discussions',
    tag: 'discussions',
    summary: 'One discussion',
    response: { status: 200, schema: discussionSchema },
    errors: one,
  },
  {
    operationId: 'renameDiscussion',
    method: 'PATCH',
    path: '/discussions/{id}',
    scope: 'write:discussions',
    tag: 'discussions',
    summary: 'Rename a discussion',
    body: updateDiscussionSchema,
    response: { status: 200, schema: discussionSchema },
    errors: [...write, 'not_found'],
  },
  {
    operationId: 'deleteDiscussion',
    method: 'DELETE',
    path: '/discussions/{id}',
    scope: 'write:discussions',
    tag: 'discussions',
    summary: 'Delete a discussion with its messages',
    response: { status: 204 },
    errors: one,
  },
  {
    operationId: 'listMessages',
    method: 'GET',
    path: '/discussions/{id}/messages',
    scope: 'read:discussions',
    tag: 'discussions',
    summary: 'The messages of a discussion, oldest first',
    query: pageQuerySchema,
    response: { status: 200, schema: messageListSchema },
    errors: [...list, 'not_found'],
  },
  {
    operationId: 'listMemories',
    method: 'GET',
    path: '/memories',
    scope: 'read:memories',
    tag: 'memories',
    summary: 'List memories, newest first; ?q= is a full-text search that matches every word',
    query: searchablePageQuerySchema,
    response: { status: 200, schema: memoryListSchema },
    errors: list,
  },
  {
    operationId: 'createMemory',
    method: 'POST',
    path: '/memories',
    scope: 'write:memories',
    tag: 'memories',
    summary: 'Create a memory',
    body: createMemorySchema,
    response: { status: 201, schema: memorySchema },
    errors: write,
  },
  {
    operationId: 'getMemory',
    method: 'GET',
    path: '/memories/{id}',
    scope: 'read:memories',
    tag: 'memories',
    summary: 'One memory',
    response: { status: 200, schema: memorySchema },
    errors: one,
  },
  {
    operationId: 'updateMemory',
    method: 'PATCH',
    path: '/memories/{id}',
    scope: 'write:memories',
    tag: 'memories',
    summary: 'Edit a memory',
    body: updateMemorySchema,
    response: { status: 200, schema: memorySchema },
    errors: [...write, 'not_found'],
  },
  {
    operationId: 'deleteMemory',
    method: 'DELETE',
    path: '/memories/{id}',
    scope: 'write:memories',
    tag: 'memories',
    summary: 'Delete a memory',
    response: { status: 204 },
    errors: one,
  },
  {
    operationId: 'listTokens',
    method: 'GET',
    path: '/tokens',
    scope: 'write:account',
    tag: 'tokens',
    summary: 'List personal tokens (never their secrets)',
    query: pageQuerySchema,
    response: { status: 200, schema: tokenListSchema },
    errors: list,
  },
  {
    operationId: 'createToken',
    method: 'POST',
    path: '/tokens',
    scope: 'write:account',
    tag: 'tokens',
    summary: 'Create a personal token; the secret is in this reply only',
    body: createTokenSchema,
    response: { status: 201, schema: createdTokenSchema },
    errors: write,
  },
  {
    operationId: 'revokeToken',
    method: 'DELETE',
    path: '/tokens/{id}',
    scope: 'write:account',
    tag: 'tokens',
    summary: 'Revoke a personal token; its next use gets 401',
    response: { status: 204 },
    errors: one,
  },
  {
    operationId: 'getOpenApi',
    method: 'GET',
    path: '/openapi.json',
    scope: null,
    tag: 'meta',
    summary: 'This document',
    response: { status: 200 },
    errors: ['rate_limited'],
  },
];
