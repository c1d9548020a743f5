import { Module, type DynamicModule } from '@nestjs/common';
import { AccountService } from './account.service';
import { MeController } from './me.controller';

/** The calling account (`GET /me`); accounts are created by operators (create-account.ts), not over the API. */
@Module({})
export class AccountsModule {
  /** @param tools the tools module: `/me` checks auto-approved tools against its catalogue. */
  static register(tools: DynamicModule): DynamicModule {
    return {
      module: AccountsModule,
      imports: [tools],
      controllers: [MeController],
      providers: [AccountService],
    };
  }
}
