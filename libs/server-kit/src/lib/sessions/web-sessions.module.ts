import { Module } from '@nestjs/common';
import { ProviderSessions } from './provider-sessions';
import { WebSessions } from './web-sessions';

/**
 * The browser sessions of the pages (WebSessions, and the authorization server's own that follow them), for every
 * module with pages to import: the web pages, the web app, the OAuth consent pages, the connection pages. One
 * instance however many import it, so that one onSend hook sets the cookies. Needs STORAGE and SERVER_CONFIG from
 * the composition root.
 */
@Module({
  providers: [WebSessions, ProviderSessions],
  exports: [WebSessions, ProviderSessions],
})
export class WebSessionsModule {}
