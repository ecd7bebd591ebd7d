import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import type { App } from '../../types.js';

/** `GET /.well-known/jwks.json`: the public keys that verify every JWT the service issues. */
export async function jwksRoutes(app: App, services: Services): Promise<void> {
  app.get(
    '/.well-known/jwks.json',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Public keys that verify every JWT the service issues',
        response: { 200: Type.Object({ keys: Type.Array(Type.Object({}, { additionalProperties: true })) }) },
      },
    },
    async (_request, reply) => {
      void reply.header('Cache-Control', 'public, max-age=300');
      return services.tokens.jwks;
    },
  );
}
