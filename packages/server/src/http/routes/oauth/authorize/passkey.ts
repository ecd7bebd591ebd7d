import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { Type } from 'typebox';
import { AppError } from '../../../../errors.js';
import { routeLimit } from '../../../rateLimits.js';
import { errorResponses } from '../../../schemas.js';
import type { App } from '../../../types.js';
import { type AuthorizePage, pageForm } from './shared.js';

const PasskeyForm = pageForm({ credential: Type.String({ maxLength: 30_000 }) });

/**
 * `POST /oauth/authorize/passkey`: the passkey sign-in of the login page. The page's script runs the
 * WebAuthn ceremony and posts the AuthenticationResponseJSON here with the page's CSRF token; a refused
 * passkey shows the sign-in form again.
 */
export async function passkeyLoginRoutes(app: App, page: AuthorizePage): Promise<void> {
  const { passkeys } = page.services;

  app.post(
    '/oauth/authorize/passkey',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Passkey sign-in of the login-and-consent page (sets the session cookie)',
        body: PasskeyForm,
        response: errorResponses(400, 401, 403, 429),
      },
      config: {
        errorStyle: 'oauth',
        rateLimit: routeLimit(page.services.config.rateLimits, 'passkey_login'),
      },
    },
    async (request, reply) => {
      return page.runFormAction(request, reply, request.body, {
        action: () => passkeys.authenticate(parseCredential(request.body.credential)),
        expected: [400, 401],
        showForm: (authz) =>
          page.showLogin(request, reply, authz, 401, { error: { key: 'signin.error.passkeyRefused' } }),
        // Two factors when the authenticator verified the user (PIN, biometric), like the JSON sign-in;
        // without, one: an account with TOTP takes the code step, as after a password.
        done: (authz, { userUuid, at, userVerified }) =>
          userVerified
            ? page.signedInBackToAuthorize(reply, authz, {
                userUuid,
                authTime: at,
                amr: ['hwk', 'user', 'mfa'],
              })
            : page.afterFirstFactor(request, reply, authz, { userUuid, authTime: at, amr: ['hwk', 'user'] }),
      });
    },
  );
}

function parseCredential(text: string): AuthenticationResponseJSON {
  try {
    const value = JSON.parse(text) as AuthenticationResponseJSON;
    if (value && typeof value === 'object' && typeof value.id === 'string' && value.response) return value;
  } catch {
    /* answered below */
  }
  throw new AppError(400, 'invalid_request', 'credential is not a passkey response', { field: 'credential' });
}
