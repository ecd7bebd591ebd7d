import { Type } from 'typebox';
import type { Services } from '../../../composition/index.js';
import { VERIFICATION_PURPOSES } from '../../../services/verification/emailVerificationService.js';
import { authOf, bearerSecurity, requireToken } from '../../auth.js';
import { errorResponses } from '../../schemas.js';
import type { App } from '../../types.js';
import { perAddressLimiter, perSession } from '../../rateLimits.js';

const Purpose = Type.Union(
  VERIFICATION_PURPOSES.map((p) => Type.Literal(p)),
  { description: 'What the verification is for: `pin_recover`' },
);

/** E-mail verification (decisions §4): a mailed 6-digit code for a single-use verification token. */
export async function emailVerificationRoutes(app: App, services: Services): Promise<void> {
  const { emailVerification } = services;
  const limits = services.config.rateLimits;
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
      config: perSession(limits, 'email_send'),
    },
    async (request) => {
      const auth = authOf(request);
      const { expiresIn } = await emailVerification.sendCode(
        Number(auth.userId),
        request.body.purpose,
        auth.jti,
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
      config: perSession(limits, 'email_verify'),
    },
    async (request) => {
      const auth = authOf(request);
      const result = await emailVerification.verifyCode(
        Number(auth.userId),
        request.body.purpose,
        request.body.code,
        auth.jti,
      );
      return { success: true, verification_token: result.verificationToken, expires_in: result.expiresIn };
    },
  );
}
