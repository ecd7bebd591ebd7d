import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../composition.js';
import { invalidRequest, unsupportedGrantType } from '../../services/oauth/oauthErrors.js';
import type { IssuedTokens } from '../../services/oauth/oauthService.js';
import { errorResponses } from '../schemas.js';
import type { App } from '../types.js';
import { authenticateClient, claimedClientId } from './oauthClientAuth.js';

const str = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
const clientCredentials = { client_id: str(200), client_secret: str(500) };

const TokenBody = Type.Object(
  {
    grant_type: Type.String({ maxLength: 100 }),
    ...clientCredentials,
    code: str(500),
    redirect_uri: str(4096),
    code_verifier: str(500),
    refresh_token: str(500),
    scope: str(1000),
  },
  { additionalProperties: true },
);

const TokenResult = Type.Object({
  success: Type.Boolean(),
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'Seconds' }),
  user_id: Type.String(),
  refresh_token: Type.String(),
  content_address: Type.Optional(
    Type.String({ description: 'dapp apps only: the main wallet address of the user, when they have one' }),
  ),
});

const TokenOnlyBody = Type.Object(
  { token: Type.String({ maxLength: 4096 }), token_type_hint: str(50), ...clientCredentials },
  { additionalProperties: true },
);

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
});

export const tokenResult = (t: IssuedTokens) => ({
  success: true,
  access_token: t.accessToken,
  token_type: 'Bearer' as const,
  expires_in: t.expiresIn,
  user_id: t.userId,
  refresh_token: t.refreshToken,
  ...(t.contentAddress !== undefined ? { content_address: t.contentAddress } : {}),
});

const noStore = async (_request: unknown, reply: FastifyReply) => {
  void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
};

/**
 * The token endpoint (spec endpoint 3) with JSON or form bodies and client authentication in the
 * body or by HTTP Basic, plus revocation (RFC 7009), introspection (RFC 7662) and the RFC 8414
 * metadata document.
 */
export async function oauthTokenRoutes(app: App, services: Services): Promise<void> {
  const { clients, oauth, config } = services;
  const rateLimit = {
    max: config.oauthRateLimit,
    timeWindow: '1 minute',
    hook: 'preHandler' as const,
    keyGenerator: (request: Parameters<typeof claimedClientId>[0]) =>
      `oauth:${claimedClientId(request)}:${request.ip}`,
  };

  app.post(
    '/oauth/token',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Token exchange (spec endpoint 3): authorization_code or refresh_token',
        description:
          'JSON or application/x-www-form-urlencoded. Client authentication: `client_id` + `client_secret` in the body, or HTTP Basic. Errors follow RFC 6749 §5.2 (`error`, `error_description`).',
        body: TokenBody,
        response: { 200: TokenResult, ...errorResponses(400, 401, 413, 415, 429) },
      },
      onRequest: noStore,
      config: { errorStyle: 'oauth', rateLimit },
    },
    async (request) => {
      const body = request.body;
      if (body.grant_type !== 'authorization_code' && body.grant_type !== 'refresh_token') {
        throw unsupportedGrantType();
      }
      const client = await authenticateClient(request, body, clients);
      if (body.grant_type === 'authorization_code') {
        if (body.code === undefined) throw invalidRequest('code', 'code is required');
        if (body.redirect_uri === undefined) throw invalidRequest('redirect_uri', 'redirect_uri is required');
        return tokenResult(
          await oauth.exchangeCode({
            client,
            code: body.code,
            redirectUri: body.redirect_uri,
            codeVerifier: body.code_verifier,
          }),
        );
      }
      if (body.refresh_token === undefined)
        throw invalidRequest('refresh_token', 'refresh_token is required');
      return tokenResult(await oauth.refresh({ client, refreshToken: body.refresh_token }));
    },
  );

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
      config: { errorStyle: 'oauth', rateLimit },
    },
    async (request) => {
      const client = await authenticateClient(request, request.body, clients);
      await oauth.revokeToken({ client, token: request.body.token });
      return { success: true };
    },
  );

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
      config: { errorStyle: 'oauth', rateLimit },
    },
    async (request) => {
      const client = await authenticateClient(request, request.body, clients);
      return { success: true, ...(await oauth.introspect({ client, token: request.body.token })) };
    },
  );

  const issuer = config.publicUrl;
  const metadata = {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
    service_documentation: `${issuer}/docs`,
  };

  app.get(
    '/.well-known/oauth-authorization-server',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Authorization server metadata (RFC 8414)',
        response: { 200: Type.Object({}, { additionalProperties: true }) },
      },
    },
    async (_request, reply) => {
      void reply.header('cache-control', 'public, max-age=300');
      return metadata;
    },
  );
}
