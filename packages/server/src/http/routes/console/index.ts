import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';
import type { Services } from '../../../composition/index.js';
import { notFound } from '../../../errors.js';
import { prefersHtml } from '../../pages/html.js';
import type { App } from '../../types.js';

/**
 * The web console (docs/console.md): a static shell, one stylesheet and the ES modules `tsc -b`
 * compiles from packages/console. The pages call the public /v1 API like any client; this route only
 * serves files. They are read once, at start, into a fixed table: a request can name nothing else, so
 * there is no path to traverse.
 */
const CONSOLE_DIR = fileURLToPath(new URL('../../../../../console/', import.meta.url));

/**
 * Same origin only: scripts and styles are files of this service (no inline code, no CDN), the pages
 * talk to this service alone, and nothing may frame them.
 */
export const CONSOLE_HEADERS: Record<string, string> = {
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

interface Asset {
  body: Buffer;
  type: string;
}

/** Every file under `dir` with a known type, keyed by its `/`-separated path relative to `dir`. */
function readAssets(dir: string, prefix = ''): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!fs.existsSync(dir)) return assets;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const key = `${prefix}${entry.name}`;
    if (entry.isDirectory()) {
      for (const [name, asset] of readAssets(full, `${key}/`)) assets.set(name, asset);
      continue;
    }
    const type = TYPES[path.extname(entry.name)];
    if (type) assets.set(key, { body: fs.readFileSync(full), type });
  }
  return assets;
}

/** The libraries `packages/console/scripts/vendor.mjs` copies into the compiled console. */
const VENDORED = ['vendor/uplot.js', 'vendor/uqr.js', 'vendor/intl-messageformat.js'];

export function loadConsoleAssets(consoleDir = CONSOLE_DIR): { shell?: Asset; assets: Map<string, Asset> } {
  const assets = readAssets(path.join(consoleDir, 'dist'));
  const statics = readAssets(path.join(consoleDir, 'static'));
  const shell = statics.get('index.html');
  statics.delete('index.html');
  for (const [name, asset] of statics) assets.set(name, asset);
  // main.js imports the libraries `npm run build` copies beside it (charts, QR codes, ICU messages):
  // without them no page would load.
  const built = ['main.js', ...VENDORED].every((name) => assets.has(name));
  return { ...(shell && built ? { shell } : {}), assets };
}

export async function consoleRoutes(app: App, services: Services): Promise<void> {
  const { shell, assets } = loadConsoleAssets();
  if (!shell) services.logger.warn({ dir: CONSOLE_DIR }, 'web console not built: run `npm run build`');

  const send = (reply: FastifyReply, asset: Asset, cache: string) =>
    reply
      .headers(CONSOLE_HEADERS)
      .header('content-type', asset.type)
      .header('cache-control', cache)
      .send(asset.body);

  const page = async (_request: unknown, reply: FastifyReply) => {
    if (!shell) {
      return reply
        .status(503)
        .headers(CONSOLE_HEADERS)
        .type('text/plain; charset=utf-8')
        .send('The web console is not built: run `npm run build`.');
    }
    return send(reply, shell, 'no-store');
  };
  // The service's root: a browser (someone who typed the address) lands on the console; an API client
  // gets where things are.
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    if (prefersHtml(request.headers.accept)) return reply.redirect('/console', 302);
    return reply.send({
      service: 'dauth',
      console: '/console',
      docs: '/docs',
      openid_configuration: '/.well-known/openid-configuration',
    });
  });
  app.get('/console', { schema: { hide: true } }, page);
  app.get('/console/', { schema: { hide: true } }, page);
  // The organization invitation mail's link (docs/orgs.md): the console takes the token from the query.
  app.get('/console/invitations', { schema: { hide: true } }, page);

  app.get<{ Params: { '*': string } }>(
    '/console/assets/*',
    { schema: { hide: true } },
    async (request, reply) => {
      const asset = assets.get(request.params['*']);
      if (!asset) throw notFound('not_found', 'No such console file');
      // Revalidated on every load, so a new build is picked up without stale module graphs.
      return send(reply, asset, 'no-cache');
    },
  );
}
