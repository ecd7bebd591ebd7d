import { Type } from 'typebox';
import type { SignIn } from '../../../services/mfa/signIn.js';

/** Schemas the developer-account routes (`/v1/dev-user/*`) share. */

/** E-mail and password: the body of `register` (with a nickname) and of `login_devuser`. */
export const Credentials = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

/** A token amount, as the wallet and slots pages show it. */
export const Amount = Type.String({
  pattern: '^[0-9]+$',
  description: 'Decimal string in the smallest unit',
});

/** A sign-in's answer: the login JWT and the account's uuid. */
export const Session = Type.Object({ success: Type.Boolean(), token: Type.String(), uuid: Type.String() });

/**
 * A sign-in's first step for an account with a second factor (docs/mfa.md): no token yet, the `mfa_token`
 * to send with a code to `POST /v1/dev-user/login/mfa`.
 */
export const MfaRequired = Type.Object({
  success: Type.Boolean(),
  mfa_required: Type.Literal(true),
  mfa_token: Type.String({ description: 'Single use, 5 minutes, 5 codes at most' }),
  methods: Type.Array(Type.Union([Type.Literal('totp'), Type.Literal('recovery_code')])),
  expires_in: Type.Integer({ description: 'Seconds the mfa_token lives' }),
});

/** The answer of a sign-in route: the session, or (an account with TOTP) the second step's `mfa_token`. */
export const SignInAnswer = Type.Union([Session, MfaRequired]);

/** The JSON of a `SignIn`, `extra` (e.g. `created`) beside it. */
export function signInBody<E extends object>(signIn: SignIn, extra: E = {} as E) {
  return signIn.mfaRequired
    ? {
        success: true,
        mfa_required: true as const,
        mfa_token: signIn.mfaToken,
        methods: signIn.methods,
        expires_in: signIn.expiresIn,
        ...extra,
      }
    : { success: true, token: signIn.token, uuid: signIn.uuid, ...extra };
}

/**
 * A federated sign-in's answer: a login JWT for the account (or the second step's `mfa_token`), `created`
 * when this sign-in made it. The native flow (`federated-login`) and the console's login ticket
 * (`/v1/federation/login-ticket`) both answer it.
 */
export const FederatedSignIn = Type.Union([
  Type.Object({
    success: Type.Boolean(),
    token: Type.String(),
    uuid: Type.String(),
    created: Type.Boolean(),
  }),
  Type.Intersect([MfaRequired, Type.Object({ created: Type.Boolean() })]),
]);
