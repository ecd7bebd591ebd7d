import { Type } from 'typebox';
import type { Services } from '../../composition.js';
import { errorResponses } from '../schemas.js';
import type { App } from '../types.js';

const Credentials = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

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
      config: { rateLimit: { max: 20, timeWindow: '1 minute' } },
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
