import { Controller, Param } from '@nestjs/common';
import type { Device, ListEnvelope, PageQuery } from '@assistant/contracts';
import { CurrentPrincipal, TokenService, type Principal } from '@assistant/auth';
import { Route, RouteQuery, ApiError } from '@assistant/server-kit';
import { presentDevice } from './device.presenter';

/** Paired devices are the account's device tokens; revoking one goes through TokenService, which forgets it at once. */
@Controller()
export class DevicesController {
  constructor(private readonly tokens: TokenService) {}

  @Route('listDevices')
  async list(
    @CurrentPrincipal() p: Principal,
    @RouteQuery() query: PageQuery,
  ): Promise<ListEnvelope<Device>> {
    const page = await this.tokens.list(p.userId, 'device', query);
    return { data: page.items.map(presentDevice), next_cursor: page.nextCursor };
  }

  @Route('revokeDevice')
  async revoke(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<void> {
    if (!(await this.tokens.revoke(p.userId, id, 'device'))) throw ApiError.notFound('device');
  }
}
