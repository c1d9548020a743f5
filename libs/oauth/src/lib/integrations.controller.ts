import { Controller, Param } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@assistant/auth';
import { Route } from '@assistant/server-kit';
import { IntegrationsService } from './integrations.service';

/** Third-party applications granted access (SPEC §3 `/integrations`). */
@Controller()
export class IntegrationsController {
  constructor(private readonly integrations: IntegrationsService) {}

  @Route('listIntegrations')
  async list(@CurrentPrincipal() p: Principal) {
    return { data: await this.integrations.list(p.userId) };
  }

  @Route('revokeIntegration')
  async revoke(@CurrentPrincipal() p: Principal, @Param('client_id') clientId: string): Promise<void> {
    await this.integrations.revoke(p.userId, clientId);
  }
}
