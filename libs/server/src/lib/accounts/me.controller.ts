import { Controller } from '@nestjs/common';
import type { Account, UpdateAccount } from '@assistant/contracts';
import { CurrentPrincipal, type Principal } from '@assistant/auth';
import { Route, RouteBody } from '@assistant/server-kit';
import { AccountService } from './account.service';

@Controller()
export class MeController {
  constructor(private readonly accounts: AccountService) {}

  @Route('getMe')
  me(@CurrentPrincipal() principal: Principal): Account | Promise<Account> {
    return this.accounts.describe(principal);
  }

  @Route('updateMe')
  update(@CurrentPrincipal() principal: Principal, @RouteBody() body: UpdateAccount): Promise<Account> {
    return this.accounts.update(principal, body);
  }
}
