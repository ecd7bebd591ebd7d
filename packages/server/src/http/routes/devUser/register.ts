import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { routeLimit } from '../../rateLimits.js';
import { AltchaField } from '../../defense.js';
import { requestLocale } from '../../requestLocale.js';
import { checkedLocale } from '../../../services/accounts/accountService.js';
import { Credentials } from './accountSchemas.js';

/** `POST /v1/dev-user/register`: sign up as a developer with e-mail and password. */
export async function devUserRegisterRoutes(app: App, services: Services): Promise<void> {
  const { accounts } = services;

  app.post(
    '/v1/dev-user/register',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Sign up with e-mail and password',
        body: Type.Intersect([
          Credentials,
          Type.Object({
            nickname: Type.Optional(Type.String({ maxLength: 100 })),
            altcha: AltchaField,
            locale: Type.Optional(
              Type.String({
                maxLength: 35,
                description:
                  'The language of the account’s mails (docs/account.md "Language"): en, es, pt-BR, fr, de, ja, ko, zh-Hans, ru or ar; without it, Accept-Language',
              }),
            ),
          }),
        ]),
        response: {
          201: Type.Object({ success: Type.Boolean(), uuid: Type.String() }),
          ...errorResponses(400, 409, 429),
        },
      },
      config: { rateLimit: routeLimit(services.config.rateLimits, 'register') },
    },
    async (request, reply) => {
      // A named language must be supported (400 before the challenge is spent); else the request's own.
      const locale =
        request.body.locale === undefined ? requestLocale(request) : checkedLocale(request.body.locale);
      // `BOT_CHALLENGE` with `signup`: a solved challenge first (docs/security.md "Bot challenge").
      await services.botChallenge.require('signup', request.body.altcha);
      const { email, password, nickname } = request.body;
      const user = await accounts.register({ email, password, nickname, locale });
      return reply.status(201).send({ success: true, uuid: String(user.userUuid) });
    },
  );
}
