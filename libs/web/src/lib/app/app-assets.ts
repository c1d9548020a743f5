import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ICON_SVG, iconPng } from './app-icons';
import { APP_STYLESHEET } from './app-stylesheet';

/** Where the web app's files are served. */
export const APP_ASSETS = {
  script: '/app/app.js',
  stylesheet: '/app/app.css',
  manifest: '/app/manifest.webmanifest',
  iconSvg: '/app/icon.svg',
  icon192: '/app/icon-192.png',
  icon512: '/app/icon-512.png',
} as const;

/** What makes the app installable: its name, where it starts, its icons. */
const MANIFEST = JSON.stringify({
  name: 'Assistant',
  short_name: 'Assistant',
  start_url: '/app',
  scope: '/app',
  display: 'standalone',
  background_color: '#ffffff',
  theme_color: '#1f4e79',
  icons: [
    { src: APP_ASSETS.iconSvg, sizes: 'any', type: 'image/svg+xml' },
    { src: APP_ASSETS.icon192, sizes: '192x192', type: 'image/png', purpose: 'any maskable' },
    { src: APP_ASSETS.icon512, sizes: '512x512', type: 'image/png', purpose: 'any maskable' },
  ],
});

/**
 * The app's one script: `client/app.ts`, compiled by the library's build (tsconfig.app-client.json) next to this
 * file. Read once, on first request; a server run from sources without that build answers 404 for it.
 */
function readScript(): Buffer | null {
  try {
    return readFileSync(join(__dirname, 'client', 'app.js'));
  } catch {
    return null;
  }
}

/** Serves the app's script, stylesheet, manifest and icons: public, the same for everyone. */
export function serveAppAssets(fastify: FastifyInstance): void {
  let script: Buffer | null | undefined;
  const cached = 'public, max-age=300';
  const icons = new Map<string, Buffer>();
  const png = (size: number) => {
    let icon = icons.get(String(size));
    if (!icon) icons.set(String(size), (icon = iconPng(size)));
    return icon;
  };
  fastify.get(APP_ASSETS.script, async (_request, reply) => {
    if (script === undefined) script = readScript();
    if (!script) return reply.code(404).type('text/plain; charset=utf-8').send('the web app was not built');
    return reply.header('cache-control', cached).type('text/javascript; charset=utf-8').send(script);
  });
  fastify.get(APP_ASSETS.stylesheet, async (_request, reply) =>
    reply.header('cache-control', cached).type('text/css; charset=utf-8').send(APP_STYLESHEET),
  );
  fastify.get(APP_ASSETS.manifest, async (_request, reply) =>
    reply.header('cache-control', cached).type('application/manifest+json').send(MANIFEST),
  );
  fastify.get(APP_ASSETS.iconSvg, async (_request, reply) =>
    reply.header('cache-control', cached).type('image/svg+xml').send(ICON_SVG),
  );
  fastify.get(APP_ASSETS.icon192, async (_request, reply) =>
    reply.header('cache-control', cached).type('image/png').send(png(192)),
  );
  fastify.get(APP_ASSETS.icon512, async (_request, reply) =>
    reply.header('cache-control', cached).type('image/png').send(png(512)),
  );
}
