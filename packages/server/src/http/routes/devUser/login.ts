import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { Credentials } from './accountSchemas.js';

/** `POST /v1/dev-user/login_devuser`: developer login with e-mail and password, for a login JWT. */
export async function devUserLoginRoutes(app: App, services: Services): Promise<void> {
  const { accounts } = services;

  app.post(
    '/v1/dev-user/login_devuser',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Developer login: e-mail and password for a login JWT',
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
}
