import { Module } from '@nestjs/common';
import { AccountService } from './account.service';
import { MeController } from './me.controller';

/** The calling account (`GET /me`); accounts are created by operators (create-account.ts), not over the API. */
@Module({ controllers: [MeController], providers: [AccountService] })
export class AccountsModule {}
