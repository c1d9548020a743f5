import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService, NestFactory } from '@nestjs/core';
import { html, markup } from './page';
import {
  contributionsOf,
  ProfileSection,
  SitePages,
  type PageProvider,
  type ProfileSectionPlace,
  type ProfileSectionProvider,
} from './page-contributions';

@Injectable()
@ProfileSection({ order: 70 })
class BillingSection implements ProfileSectionProvider {
  render() {
    return html`<section>Billing</section>`;
  }
}

@Injectable()
@SitePages()
class BillingPages implements PageProvider {
  routes() {
    return [{ method: 'GET' as const, path: '/profile/billing', handle: async () => 'billing' }];
  }
}

// Both marks on one class (a section with a form of its own, as OAuth's applications section and its revoke route).
@Injectable()
@ProfileSection({ order: 80 })
@SitePages()
class InvoicesSection implements ProfileSectionProvider, PageProvider {
  render() {
    return html`<section>Invoices</section>`;
  }
  routes() {
    return [{ method: 'POST' as const, path: '/profile/invoices/:id/pay', handle: async () => 'paid' }];
  }
}

@Injectable()
class Unmarked {}

// A feature's own module: nothing here names the web module, and the web module names none of these.
@Module({ providers: [BillingSection, BillingPages, InvoicesSection, Unmarked] })
class BillingModule {}

@Module({ imports: [DiscoveryModule, BillingModule] })
class SiteModule {}

describe('what features contribute to the site', () => {
  it('finds the providers marked as pages and as profile sections in any module, with their place', async () => {
    const app = await NestFactory.createApplicationContext(SiteModule, { logger: false });
    try {
      const discovery = app.get(DiscoveryService);

      const pages = contributionsOf<PageProvider, void>(discovery, SitePages);
      const sections = contributionsOf<ProfileSectionProvider, ProfileSectionPlace>(
        discovery,
        ProfileSection,
      );

      expect(pages.map(({ instance }) => instance.routes().map((r) => r.path))).toEqual([
        ['/profile/billing'],
        ['/profile/invoices/:id/pay'],
      ]);
      expect(sections.map(({ options }) => options)).toEqual([{ order: 70 }, { order: 80 }]);
      expect(markup((await sections[0].instance.render({ userId: 'u', csrf: 'c' }))!)).toBe(
        '<section>Billing</section>',
      );
    } finally {
      await app.close();
    }
  });
});
