import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  createTokenSchema,
  pageQuerySchema,
  type CreatedToken,
  type CreateToken,
  type ListEnvelope,
  type PageQuery,
  type PersonalToken,
} from '@assistant/contracts';
import { CurrentPrincipal, Scopes, TokenService, type Principal } from '@assistant/auth';
import type { TokenEntity } from '@assistant/storage';
import { validBody, validQuery } from '../http/zod-validation.pipe';
import { ApiError } from '../http/api-error';

export function presentToken(t: TokenEntity): PersonalToken {
  return {
    id: t.id,
    name: t.name,
    scopes: t.scopes as PersonalToken['scopes'],
    token_prefix: t.tokenPrefix,
    created_at: t.createdAt.toISOString(),
    expires_at: t.expiresAt?.toISOString() ?? null,
    last_used_at: t.lastUsedAt?.toISOString() ?? null,
  };
}

/** Personal tokens. The rules live in TokenService (auth); this only translates HTTP. */
@Controller('tokens')
export class TokensController {
  constructor(private readonly tokens: TokenService) {}

  @Get()
  @Scopes('write:account')
  async list(
    @CurrentPrincipal() p: Principal,
    @Query(validQuery(pageQuerySchema)) query: PageQuery,
  ): Promise<ListEnvelope<PersonalToken>> {
    const page = await this.tokens.list(p.userId, 'personal', query);
    return { data: page.items.map(presentToken), next_cursor: page.nextCursor };
  }

  @Post()
  @Scopes('write:account')
  async create(
    @CurrentPrincipal() p: Principal,
    @Body(validBody(createTokenSchema)) body: CreateToken,
  ): Promise<CreatedToken> {
    const beyond = body.scopes.filter((scope) => !p.scopes.includes(scope));
    if (beyond.length > 0) {
      // A token can hand on what it holds, never more: otherwise a narrow token could mint a wider one.
      throw ApiError.validation(
        beyond.map((scope) => ({
          field: 'scopes',
          message: `${scope} is not held by the token making this call`,
        })),
      );
    }
    const issued = await this.tokens.issue({
      userId: p.userId,
      kind: 'personal',
      name: body.name,
      scopes: body.scopes,
      expiresAt: body.expires_at ? new Date(body.expires_at) : null,
    });
    return { ...presentToken(issued.record), token: issued.secret };
  }

  @Delete(':id')
  @HttpCode(204)
  @Scopes('write:account')
  async revoke(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<void> {
    if (!(await this.tokens.revoke(p.userId, id, 'personal'))) throw ApiError.notFound('token');
  }
}
