import { Injectable } from '@nestjs/common';
import type { Html } from '../page';

/** What a section of /profile is drawn for. */
export interface ProfileSectionContext {
  userId: string;
  /** The CSRF token for the section's forms (`csrfField`). */
  csrf: string;
}

/**
 * INTEGRATIONS — the place on /profile for the third-party applications this account let in (their scopes, last
 * use and recent activity, and a one-click Revoke). It belongs to the OAuth work (libs/server/src/lib/oauth),
 * which fills `render` in; until then /profile has no such section. The profile page shows whatever this
 * returns between personal tokens and paired devices; null shows nothing.
 */
@Injectable()
export class IntegrationsSection {
  async render(_context: ProfileSectionContext): Promise<Html | null> {
    return null;
  }
}
