import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { WebSessionsModule } from '@assistant/server-kit';
import { AppPages } from './app.pages';
import { AppRoutes } from './app-routes';
import { BrowserCredentials } from './browser-credentials';

/**
 * The chat web app at /app (its pages, its script and icons) and what lets its script call /api/v1 with the
 * browser's HttpOnly credential (BrowserCredentials). WebSessions comes from the kit's WebSessionsModule.
 */
@Module({})
export class WebAppModule {
  /** @param pairing the module that provides and exports DEVICE_PAIRING (the devices feature). */
  static register(pairing: Type): DynamicModule {
    return {
      module: WebAppModule,
      imports: [WebSessionsModule, pairing],
      providers: [AppPages, AppRoutes, BrowserCredentials],
    };
  }
}
