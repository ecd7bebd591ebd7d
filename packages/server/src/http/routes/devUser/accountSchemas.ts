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
