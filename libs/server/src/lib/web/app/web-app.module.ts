import { Module } from '@nestjs/common';
import { DevicesModule } from '../../devices/devices.module';
import { AppPages } from './app.pages';
import { AppRoutes } from './app-routes';
import { BrowserCredentials } from './browser-credentials';

/**
 * The chat web app at /app (its pages, its script and icons) and what lets its script call /api/v1 with the
 * browser's HttpOnly credential (BrowserCredentials). WebSessions comes from the global WebModule.
 */
@Module({
  imports: [DevicesModule],
  providers: [AppPages, AppRoutes, BrowserCredentials],
})
export class WebAppModule {}
