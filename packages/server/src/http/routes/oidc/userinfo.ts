import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { isAppError, unauthorized } from '../../../errors.js';
import { USERINFO_PATH } from '../../../services/oidc/discovery.js';
import { bearerToken } from '../../adminAuth.js';
import { bearerSecurity } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

/**
 * The `WWW-Authenticate` challenge of RFC 6750 §3 for a refused userinfo request: no error for a
 * request without a token, `invalid_token` for a bad, expired or revoked one, `insufficient_scope`
 * for a token without `openid`.
 */
function bearerChallenge(code: string): string {
  if (code === 'missing_token') return 'Bearer realm="dauth"';
  if (code === 'insufficient_scope')
    return 'Bearer realm="dauth", error="insufficient_scope", scope="openid"';
  return 'Bearer realm="dauth", error="invalid_token"';
}

/** `GET` and `POST /oauth/userinfo` (OIDC Core §5.3) with the access token as a bearer header. */
export async function userinfoRoutes(app: App, services: Services): Promise<void> {
  const { authenticator, oidc } = services;

  async function answer(request: FastifyRequest, reply: FastifyReply) {
    void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    try {
      const token = bearerToken(request);
      if (!token) throw unauthorized('missing_token', 'Send Authorization: Bearer <access token>');
      const claims = await authenticator.authenticate(token, 'access');
      return await oidc.userInfo.claimsFor(claims);
    } catch (err) {
      if (isAppError(err) && (err.status === 401 || err.status === 403)) {
        void reply.header('www-authenticate', bearerChallenge(err.code));
      }
      throw err;
    }
  }

  const schema = {
    tags: ['oidc'],
    summary: 'UserInfo (OpenID Connect Core §5.3): the claims the access token’s scope releases',
    description:
      '`sub` always; `name` with `profile`; `email`, `email_verified` with `email`; `wallet_address` (the main wallet, when the user has one) with `wallet`. The access token must carry the `openid` scope (else 403 `insufficient_scope`). Errors carry an RFC 6750 `WWW-Authenticate` challenge.',
    security: bearerSecurity,
    response: {
      200: Type.Object({ sub: Type.String() }, { additionalProperties: true }),
      ...errorResponses(401, 403),
    },
  };
  app.get(USERINFO_PATH, { schema, config: { errorStyle: 'oauth' } }, answer);
  app.post(USERINFO_PATH, { schema, config: { errorStyle: 'oauth' } }, answer);
}
