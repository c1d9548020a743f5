import { Module } from '@nestjs/common';
import { MeController } from './me.controller';

@Module({ controllers: [MeController] })
/** The calling account (`GET /me`); accounts are created by operators (create-account.ts), not over the API. */
export class AccountsModule {}
