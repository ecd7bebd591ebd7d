import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { routeLimit } from '../../rateLimits.js';

const Credentials = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

/** Developer accounts (`/v1/dev-user/register`, `/v1/dev-user/login_devuser`): e-mail and password. */
export async function accountRoutes(app: App, services: Services): Promise<void> {
  const { accounts } = services;

  app.post(
    '/v1/dev-user/register',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Sign up with e-mail and password',
        body: Type.Intersect([
          Credentials,
          Type.Object({ nickname: Type.Optional(Type.String({ maxLength: 100 })) }),
        ]),
        response: {
          201: Type.Object({ success: Type.Boolean(), uuid: Type.String() }),
          ...errorResponses(400, 409, 429),
        },
      },
      config: { rateLimit: routeLimit(services.config.rateLimits, 'register') },
    },
    async (request, reply) => {
      const user = await accounts.register(request.body);
      return reply.status(201).send({ success: true, uuid: String(user.userUuid) });
    },
  );

  app.post(
    '/v1/dev-user/login_devuser',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Developer login (spec endpoint 1): e-mail and password for a login JWT',
        body: Credentials,
        response: {
          200: Type.Object({ success: Type.Boolean(), token: Type.String(), uuid: Type.String() }),
          ...errorResponses(400, 401, 429),
        },
      },
      preHandler: app.loginRateLimit,
    },
    async (request) => {
      const { token, uuid } = await accounts.login(request.body.email, request.body.password);
      return { success: true, token, uuid };
    },
  );

  app.post(
    '/v1/dev-user/logout',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Revoke the bearer login JWT: validate and every later use of it fail, on every replica',
        security: bearerSecurity,
        response: {
          200: Type.Object({ success: Type.Boolean() }),
          ...errorResponses(401, 503),
        },
      },
      preHandler: requireToken(services.authenticator, 'login'),
    },
    async (request) => {
      const { jti, exp } = authOf(request);
      // The same revocation list as access tokens: kept until the token would have expired anyway (plus the
      // clock margin), shared with the other replicas over the revocation bus.
      await services.oauth.revokeJti(jti, exp);
      return { success: true };
    },
  );
}
