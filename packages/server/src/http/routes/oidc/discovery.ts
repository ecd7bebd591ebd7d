import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { openidConfiguration } from '../../../services/oidc/discovery.js';
import type { App } from '../../types.js';

/** `GET /.well-known/openid-configuration` (OpenID Connect Discovery 1.0). */
export async function oidcDiscoveryRoutes(app: App, services: Services): Promise<void> {
  const document = openidConfiguration(services.config.publicUrl);
  app.get(
    '/.well-known/openid-configuration',
    {
      schema: {
        tags: ['oidc'],
        summary: 'OpenID Provider metadata (OpenID Connect Discovery 1.0)',
        response: { 200: Type.Object({}, { additionalProperties: true }) },
      },
    },
    async (_request, reply) => {
      void reply.header('cache-control', 'public, max-age=300');
      return document;
    },
  );
}
