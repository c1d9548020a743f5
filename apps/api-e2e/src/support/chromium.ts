import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's package; CI installs it (tools/workspace/services/browser.packages). */
const CHROMIUM = process.env.ASSISTANT_CHROMIUM ?? '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A real browser (Chromium through playwright-core, headless): its context, its first page, and closing it. */
export interface OpenBrowser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** Chromium on a fresh profile each time: no cookie survives from one browser to the next. */
export async function openBrowser(): Promise<OpenBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'assistant-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
