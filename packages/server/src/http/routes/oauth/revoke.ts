import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { authenticateClient } from './clientAuthentication.js';
import { clientRateLimit, noStore, TokenOnlyBody } from './clientEndpoint.js';

/** `POST /oauth/revoke`: token revocation (RFC 7009) for an authenticated client. */
export async function oauthRevokeRoutes(app: App, services: Services): Promise<void> {
  const { clients, oauth, config } = services;

  app.post(
    '/oauth/revoke',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Token revocation (RFC 7009): an access token, or a refresh token with its whole grant',
        body: TokenOnlyBody,
        response: { 200: Type.Object({ success: Type.Boolean() }), ...errorResponses(400, 401, 429) },
      },
      onRequest: noStore,
      config: { errorStyle: 'oauth', rateLimit: clientRateLimit(config) },
    },
    async (request) => {
      const client = await authenticateClient(request, request.body, clients);
      await oauth.revokeToken({ client, token: request.body.token });
      return { success: true };
    },
  );
}
