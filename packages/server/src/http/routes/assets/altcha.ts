import type { Services } from '../../../composition/index.js';
import { notFound } from '../../../errors.js';
import { ALTCHA_ASSETS_PATH, loadAltchaAssets } from '../../pages/altchaWidget.js';
import type { App } from '../../types.js';

/**
 * The ALTCHA widget's files (docs/security.md "Bot challenge"): its module, stylesheet and SHA worker
 * from node_modules, read once at start into a fixed table (a request can name nothing else). The
 * version is in the path, so they are cached for good; a worker runs under the CSP it is served with.
 */
export async function altchaAssetRoutes(app: App, _services: Services): Promise<void> {
  const assets = loadAltchaAssets();
  const prefix = `${ALTCHA_ASSETS_PATH.slice('/assets/altcha/'.length)}/`;
  app.get<{ Params: { '*': string } }>(
    '/assets/altcha/*',
    { schema: { hide: true } },
    async (request, reply) => {
      const name = request.params['*'];
      const asset = name.startsWith(prefix) ? assets.get(name.slice(prefix.length)) : undefined;
      if (!asset) throw notFound('not_found', 'No such file');
      return reply
        .headers({
          'content-type': asset.type,
          'cache-control': 'public, max-age=31536000, immutable',
          'x-content-type-options': 'nosniff',
          'cross-origin-resource-policy': 'same-origin',
          'content-security-policy': "default-src 'none'",
        })
        .send(asset.body);
    },
  );
}
