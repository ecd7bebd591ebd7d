import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { authenticateClient } from './clientAuthentication.js';
import { clientRateLimit, noStore, TokenOnlyBody } from './clientEndpoint.js';

const IntrospectionResult = Type.Object({
  success: Type.Boolean(),
  active: Type.Boolean(),
  client_id: Type.Optional(Type.String()),
  user_id: Type.Optional(Type.String()),
  sub: Type.Optional(Type.String()),
  token_type: Type.Optional(Type.String()),
  exp: Type.Optional(Type.Integer()),
  iat: Type.Optional(Type.Integer()),
  iss: Type.Optional(Type.String()),
  jti: Type.Optional(Type.String()),
  scope: Type.Optional(Type.String({ description: 'client_credentials tokens: the granted scope' })),
  token_use: Type.Optional(
    Type.Literal('client', {
      description: 'client_credentials tokens: the token stands for the client itself, never a person',
    }),
  ),
  amr: Type.Optional(
    Type.Array(Type.String(), { description: 'How the user signed in for this grant (RFC 8176)' }),
  ),
  acr: Type.Optional(Type.String({ description: '`mfa` when that sign-in was two factors' })),
});

/** `POST /oauth/introspect`: token introspection (RFC 7662) of the calling client's own tokens. */
export async function oauthIntrospectRoutes(app: App, services: Services): Promise<void> {
  const { clients, oauth, config } = services;

  app.post(
    '/oauth/introspect',
    {
      schema: {
        tags: ['oauth'],
        summary: "Token introspection (RFC 7662) for the calling client's own tokens",
        body: TokenOnlyBody,
        response: { 200: IntrospectionResult, ...errorResponses(400, 401, 429) },
      },
      onRequest: noStore,
      config: { errorStyle: 'oauth', rateLimit: clientRateLimit(config) },
    },
    async (request) => {
      const client = await authenticateClient(request, request.body, clients);
      return { success: true, ...(await oauth.introspect({ client, token: request.body.token })) };
    },
  );
}
