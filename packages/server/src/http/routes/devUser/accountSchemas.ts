import { Type } from 'typebox';

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

/**
 * A federated sign-in's answer: a login JWT for the account, `created` when this sign-in made it. The native
 * flow (`federated-login`) and the console's login ticket (`/v1/federation/login-ticket`) both answer it.
 */
export const FederatedSignIn = Type.Object({
  success: Type.Boolean(),
  token: Type.String(),
  uuid: Type.String(),
  created: Type.Boolean(),
});
