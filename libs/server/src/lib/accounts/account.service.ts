import { Inject, Injectable } from '@nestjs/common';
import type { Account, UpdateAccount } from '@assistant/contracts';
import type { Principal } from '@assistant/auth';
import type { UserEntity, UsersRepository } from '@assistant/storage';
import { InjectRepository, SERVER_CONFIG, type ServerConfig, ApiError } from '@assistant/server-kit';
import { ToolCatalog } from '../tools/tool-catalog';

/** The caller's account as `/me` shows it, and the settings it may change there. */
@Injectable()
export class AccountService {
  constructor(
    @InjectRepository('users') private readonly users: UsersRepository,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
    private readonly catalog: ToolCatalog,
  ) {}

  /** At once when the user is read at once (SQLite): `GET /me` runs it on every request. */
  describe(principal: Principal): Account | Promise<Account> {
    const user = this.users.findById(principal.userId);
    return user instanceof Promise
      ? user.then((settled) => this.present(settled, principal))
      : this.present(user, principal);
  }

  /** Sets the tools the assistant may use without asking; every name must be a tool this server has. */
  async update(principal: Principal, body: UpdateAccount): Promise<Account> {
    const known = new Set(this.catalog.families.flatMap((family) => family.tools.map((tool) => tool.name)));
    const unknown = body.auto_approved_tools.filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw ApiError.validation(
        unknown.map((name) => ({ field: 'auto_approved_tools', message: `unknown tool ${name}` })),
      );
    }
    await this.users.setAutoApprovedTools(principal.userId, [...new Set(body.auto_approved_tools)]);
    return this.describe(principal);
  }

  private present(user: UserEntity | null, principal: Principal): Account {
    if (!user) throw ApiError.notFound('account');
    return {
      id: user.id,
      email: user.email,
      display_name: user.displayName,
      created_at: user.createdAt.toISOString(),
      deployment: this.config.deployment,
      auto_approved_tools: user.autoApprovedTools,
      token: {
        kind: principal.kind,
        scopes: principal.scopes,
        ...(principal.clientId ? { client_id: principal.clientId } : {}),
        expires_at: principal.expiresAt?.toISOString() ?? null,
      },
    };
  }
}
