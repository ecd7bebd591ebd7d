import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../composition.js';
import { VERIFICATION_PURPOSES } from '../../services/verification/emailVerificationService.js';
import { authOf, bearerSecurity, requireToken } from '../auth.js';
import { errorResponses } from '../schemas.js';
import type { App } from '../types.js';
import { perAddressLimiter } from './pin.js';

const Purpose = Type.Union(
  VERIFICATION_PURPOSES.map((p) => Type.Literal(p)),
  { description: 'What the verification is for: `pin_recover`' },
);

const perUser = (route: string, max: number) => ({
  rateLimit: {
    max,
    timeWindow: '1 minute',
    keyGenerator: (request: FastifyRequest) => `${route}:${request.auth?.userId ?? request.ip}`,
  },
});

/** E-mail verification (decisions §4): a mailed 6-digit code for a single-use verification token. */
export async function emailVerificationRoutes(app: App, services: Services): Promise<void> {
  const { emailVerification } = services;
  const limitAddress = perAddressLimiter(app, services);
  const requireLogin = requireToken(services.authenticator, 'login');
  // A fresh array per route: the rate-limit plugin appends each route's own limiter to it.
  const onRequest = () => [limitAddress, requireLogin];

  app.post(
    '/v1/auth/email/send-code',
    {
      onRequest: onRequest(),
      schema: {
        tags: ['pin'],
        summary: 'Mail a 6-digit verification code to the account’s e-mail address (10 minutes)',
        security: bearerSecurity,
        body: Type.Object({ purpose: Purpose }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            expires_in: Type.Integer({ description: 'Seconds the code stays valid' }),
          }),
          ...errorResponses(400, 401, 429, 503),
        },
      },
      config: perUser('email-send', 20),
    },
    async (request) => {
      const { expiresIn } = await emailVerification.sendCode(
        Number(authOf(request).userId),
        request.body.purpose,
      );
      return { success: true, expires_in: expiresIn };
    },
  );

  app.post(
    '/v1/auth/email/verify',
    {
      onRequest: onRequest(),
      schema: {
        tags: ['pin'],
        summary: 'Exchange the mailed code for a verification token (10 minutes, single use)',
        security: bearerSecurity,
        body: Type.Object({
          purpose: Purpose,
          code: Type.String({ pattern: '^[0-9]{6}$', description: 'The 6 digits from the e-mail' }),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            verification_token: Type.String(),
            expires_in: Type.Integer({ description: 'Seconds the token stays valid' }),
          }),
          ...errorResponses(400, 401, 429),
        },
      },
      config: perUser('email-verify', 20),
    },
    async (request) => {
      const result = await emailVerification.verifyCode(
        Number(authOf(request).userId),
        request.body.purpose,
        request.body.code,
      );
      return { success: true, verification_token: result.verificationToken, expires_in: result.expiresIn };
    },
  );
}
