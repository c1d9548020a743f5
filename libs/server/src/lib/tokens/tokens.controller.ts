import { Controller, Param } from '@nestjs/common';
import type { CreatedToken, CreateToken, ListEnvelope, PageQuery, PersonalToken } from '@assistant/contracts';
import { CurrentPrincipal, TokenService, type Principal } from '@assistant/auth';
import { Route, RouteBody, RouteQuery, ApiError } from '@assistant/server-kit';
import { TokensService } from './tokens.service';
import { presentToken } from './token.presenter';

/** Personal tokens. The rules live in TokenService (auth) and TokensService; this only translates HTTP. */
@Controller()
export class TokensController {
  constructor(
    private readonly tokens: TokenService,
    private readonly minting: TokensService,
  ) {}

  @Route('listTokens')
  async list(
    @CurrentPrincipal() p: Principal,
    @RouteQuery() query: PageQuery,
  ): Promise<ListEnvelope<PersonalToken>> {
    const page = await this.tokens.list(p.userId, 'personal', query);
    return { data: page.items.map(presentToken), next_cursor: page.nextCursor };
  }

  @Route('createToken')
  async create(@CurrentPrincipal() p: Principal, @RouteBody() body: CreateToken): Promise<CreatedToken> {
    const issued = await this.minting.mint(p, body);
    return { ...presentToken(issued.record), token: issued.secret };
  }

  @Route('revokeToken')
  async revoke(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<void> {
    if (!(await this.tokens.revoke(p.userId, id, 'personal'))) throw ApiError.notFound('token');
  }
}
