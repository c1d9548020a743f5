import { DiscoveryService } from '@nestjs/core';
import type { Html } from './page';
import type { PageRoute } from './page-route';

/**
 * How a feature adds to the site without the site naming it: a provider of the feature's own module marked
 * `@SitePages()` has its `routes()` served with the others (CSRF on every POST, the pages' headers, error pages),
 * and one marked `@ProfileSection({ order })` draws a part of /profile. The web module finds both at start-up
 * (`contributionsOf`), so a new feature's pages touch no file of the web module.
 */
export interface PageProvider {
  routes(): PageRoute[];
}

/** Marks a provider whose `routes()` are pages of the site. */
export const SitePages = DiscoveryService.createDecorator<void>();

/** What a section of /profile is drawn for: the signed-in account, and the CSRF token its forms post with. */
export interface ProfileSectionContext {
  userId: string;
  csrf: string;
}

export interface ProfileSectionProvider {
  /** Null when the section has nothing to show to this account. */
  render(context: ProfileSectionContext): Promise<Html | null> | Html | null;
}

/** Where a section sits on /profile, top to bottom; the web module's own sections use multiples of 10. */
export interface ProfileSectionPlace {
  order: number;
}

/** Marks a provider that draws a section of /profile. */
export const ProfileSection = DiscoveryService.createDecorator<ProfileSectionPlace>();

/**
 * The instances of every provider marked with `decorator`, with what the decorator was given. Read from each
 * provider's metadata, not with `getProviders({ metadataKey })`: Nest indexes a class under one discovery key only
 * (the mark applied last), so a class marked both `@ProfileSection` and `@SitePages` would be found by one of them.
 */
export function contributionsOf<T, Options>(
  discovery: DiscoveryService,
  decorator: ReturnType<typeof DiscoveryService.createDecorator<Options>>,
): { instance: T; options: Options }[] {
  return discovery
    .getProviders()
    .filter((wrapper) => wrapper.instance && wrapper.metatype)
    .map((wrapper) => ({
      instance: wrapper.instance as T,
      options: discovery.getMetadataByDecorator(decorator, wrapper) as Options | undefined,
    }))
    .filter((found): found is { instance: T; options: Options } => found.options !== undefined);
}
