import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { type ClientTokens, grantClientCredentials } from '../../../services/oauth/clientCredentialsGrant.js';
import { MANAGEMENT_SCOPES } from '../../../services/serviceAccounts/scopes.js';
import { DEVICE_CODE_GRANT_TYPE } from '../../../services/oauth/deviceAuthorizationGrant.js';
import { invalidRequest, unsupportedGrantType } from '../../../services/oauth/oauthErrors.js';
import type { TokensWithIdToken } from '../../../services/oidc/idTokenIssuer.js';
import { AppError } from '../../../errors.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { isServiceAccountId } from '../../../services/serviceAccounts/serviceAccountService.js';
import { authenticateClient, presentedCredentials } from './clientAuthentication.js';
import { clientCredentials, clientRateLimit, noStore, optionalString as str } from './clientEndpoint.js';

const TokenBody = Type.Object(
  {
    grant_type: Type.String({ maxLength: 100 }),
    ...clientCredentials,
    code: str(500),
    redirect_uri: str(4096),
    code_verifier: str(500),
    refresh_token: str(500),
    device_code: str(500),
    scope: str(1000),
  },
  { additionalProperties: true },
);

const TokenResult = Type.Object({
  success: Type.Boolean(),
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'Seconds' }),
  user_id: Type.Optional(Type.String({ description: 'Every grant but client_credentials (no user there)' })),
  refresh_token: Type.Optional(
    Type.String({ description: 'Every grant but client_credentials (RFC 6749 §4.4.3: none is issued)' }),
  ),
  scope: Type.Optional(Type.String({ description: 'client_credentials: the granted scope' })),
  content_address: Type.Optional(
    Type.String({ description: 'dapp apps only: the main wallet address of the user, when they have one' }),
  ),
  // Last, so an answer without it is byte for byte the plain OAuth 2.0 one.
  id_token: Type.Optional(
    Type.String({ description: 'OpenID Connect: only when the authorization scope contained openid' }),
  ),
});

const tokenResult = (t: TokensWithIdToken) => ({
  success: true,
  access_token: t.accessToken,
  token_type: 'Bearer' as const,
  expires_in: t.expiresIn,
  user_id: t.userId,
  refresh_token: t.refreshToken,
  ...(t.contentAddress !== undefined ? { content_address: t.contentAddress } : {}),
  ...(t.idToken !== undefined ? { id_token: t.idToken } : {}),
});

const clientTokenResult = (t: ClientTokens) => ({
  success: true,
  access_token: t.accessToken,
  token_type: 'Bearer' as const,
  expires_in: t.expiresIn,
  ...(t.scope !== undefined ? { scope: t.scope } : {}),
});

/**
 * `POST /oauth/token` (spec endpoint 3) with JSON or form bodies and client authentication in the
 * body or by HTTP Basic: the authorization_code, refresh_token, device_code (RFC 8628) and
 * client_credentials (RFC 6749 §4.4, docs/machines.md) grants.
 */
export async function oauthTokenRoutes(app: App, services: Services): Promise<void> {
  const { clients, oauth, devices, config, oidc } = services;
  const grantTypes = new Set([
    'authorization_code',
    'refresh_token',
    DEVICE_CODE_GRANT_TYPE,
    'client_credentials',
  ]);

  app.post(
    '/oauth/token',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Token exchange: authorization_code, refresh_token, device_code or client_credentials',
        description:
          'JSON or application/x-www-form-urlencoded. Client authentication: `client_id` + `client_secret` in the body, or HTTP Basic. Errors follow RFC 6749 §5.2 (`error`, `error_description`). The device-code grant (RFC 8628 §3.4, `device_code`) answers `authorization_pending`, `slow_down`, `access_denied` or `expired_token` until the user approved.',
        body: TokenBody,
        response: { 200: TokenResult, ...errorResponses(400, 401, 413, 415, 429) },
      },
      onRequest: noStore,
      config: { errorStyle: 'oauth', rateLimit: clientRateLimit(config) },
    },
    async (request) => {
      const body = request.body;
      if (!grantTypes.has(body.grant_type)) throw unsupportedGrantType();
      if (body.grant_type === 'client_credentials') {
        const presented = presentedCredentials(request, body);
        // An organization's service account (docs/machines.md): its own table, its management scopes.
        if (isServiceAccountId(presented.clientId)) {
          return clientTokenResult(
            await services.serviceAccounts.issueToken(presented.clientId, presented.secret, body.scope),
          );
        }
        const client = await clients.authenticateClient(presented.clientId, presented.secret);
        return clientTokenResult(
          grantClientCredentials(services.tokens, {
            clientId: client.clientId,
            scope: body.scope,
            reserved: MANAGEMENT_SCOPES,
          }),
        );
      }
      if (body.grant_type === 'authorization_code') {
        // The client from the cache, re-checked by the redemption's commit (docs/oauth.md, "The client cache").
        const presented = presentedCredentials(request, body);
        const issued = await clients.authenticateThen(
          presented.clientId,
          presented.secret,
          (client, checkClientAtCommit) => {
            if (body.code === undefined) throw invalidRequest('code', 'code is required');
            if (body.redirect_uri === undefined)
              throw invalidRequest('redirect_uri', 'redirect_uri is required');
            return oauth.exchangeCode({
              client,
              code: body.code,
              redirectUri: body.redirect_uri,
              codeVerifier: body.code_verifier,
              checkClientAtCommit,
            });
          },
          (err) => err instanceof AppError && err.code === 'invalid_grant',
        );
        return tokenResult(await oidc.idTokens.complete(issued));
      }
      const client = await authenticateClient(request, body, clients);
      if (body.grant_type === DEVICE_CODE_GRANT_TYPE) {
        if (body.device_code === undefined) throw invalidRequest('device_code', 'device_code is required');
        return tokenResult(await oidc.idTokens.complete(await devices.redeem(client, body.device_code)));
      }
      if (body.refresh_token === undefined)
        throw invalidRequest('refresh_token', 'refresh_token is required');
      const issued = await oauth.refresh({ client, refreshToken: body.refresh_token });
      return tokenResult(await oidc.idTokens.complete(issued));
    },
  );
}
