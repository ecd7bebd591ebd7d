import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import type { TokenClaims } from '../../../services/tokens/tokenService.js';
import { authOf, bearerSecurity, requireTokenNow } from '../../auth.js';
import { jsonOncePer } from '../../json/jsonOncePer.js';
import { sendJsonText } from '../../json/sendJson.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';

/** The 200 answer: `validateAnswerOf` writes these fields in this order. */
export const answerSchema = Type.Object({
  success: Type.Boolean(),
  active: Type.Literal(true),
  user_id: Type.String(),
  client_id: Type.String(),
  exp: Type.Integer({ description: 'Expiry, seconds since the epoch' }),
});

/**
 * A token's 200 answer as JSON text, written once per verified token: the claims object is the verified-token
 * cache's, the same object for every request that presents that token, and nothing in the answer changes while
 * the token is live (revocation is checked before, on every request). Serializing five fields per request was
 * ≈ 1,600 of the ≈ 13,000–15,500 instructions validate adds to `/healthz` (docs/performance-http.md, round 14).
 */
const validateAnswerOf = jsonOncePer((claims: TokenClaims) => ({
  success: true,
  active: true,
  user_id: claims.userId,
  client_id: claims.clientId ?? '',
  exp: claims.exp,
}));

/**
 * `GET /v1/oauth/validate` (spec endpoint 7). The cost is one map lookup for a token seen before
 * (its signature was checked on first sight) plus the in-memory revocation check, which a
 * revocation updates before it returns, so no cached answer can outlive it.
 */
export async function oauthValidateRoutes(app: App, services: Services): Promise<void> {
  app.get(
    '/v1/oauth/validate',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Token validation: 200 when the bearer access token is live',
        security: bearerSecurity,
        response: {
          200: answerSchema,
          ...errorResponses(401),
        },
      },
      preHandler: requireTokenNow(services.authenticator, 'access'),
    },
    // Not async: the answer is sent at once, without a promise to settle first.
    (request, reply) => {
      void sendJsonText(reply.header('cache-control', 'no-store'), validateAnswerOf(authOf(request)));
    },
  );
}
