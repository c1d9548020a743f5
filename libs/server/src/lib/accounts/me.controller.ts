import { Controller, Inject } from '@nestjs/common';
import type { Account } from '@assistant/contracts';
import { CurrentPrincipal, type Principal } from '@assistant/auth';
import type { Storage } from '@assistant/storage';
import { STORAGE, SERVER_CONFIG } from '../core.module';
import type { ServerConfig } from '../config/server-config';
import { ApiError } from '../http/api-error';
import { Route } from '../routing/route.decorator';

@Controller()
export class MeController {
  constructor(
    @Inject(STORAGE) private readonly storage: Storage,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
  ) {}

  @Route('getMe')
  async me(@CurrentPrincipal() principal: Principal): Promise<Account> {
    const user = await this.storage.users.findById(principal.userId);
    if (!user) throw ApiError.notFound('account');
    return {
      id: user.id,
      email: user.email,
      display_name: user.displayName,
      created_at: user.createdAt.toISOString(),
      deployment: this.config.deployment,
      token: {
        kind: principal.kind,
        scopes: principal.scopes,
        ...(principal.clientId ? { client_id: principal.clientId } : {}),
        expires_at: principal.expiresAt?.toISOString() ?? null,
      },
    };
  }
}
