import type { AppError } from '../../../../errors.js';
import type { MessageKey } from '../../../../i18n/catalogues/index.js';
import type { MessageValue } from '../../../../i18n/translator.js';
import { MIN_PASSWORD_LENGTH } from '../../../../services/accounts/accountService.js';
import { COMMON_PASSWORD_HINT } from '../../../../services/defense/passwordStrength.js';

/**
 * A note of the sign-in pages (an error or a notice), named by its catalogue key: the page translates it
 * into its own language. `field`: the input an error concerns (its id), tied to it by `aria-describedby`.
 */
export interface PageMessage {
  key: MessageKey;
  values?: Readonly<Record<string, MessageValue>>;
  field?: string | undefined;
}

/** The person's words for the codes the account forms answer with; the API's messages stay English. */
const FORM_ERRORS: Readonly<Record<string, MessageKey>> = {
  invalid_credentials: 'signin.error.wrongPassword',
  email_taken: 'signin.error.emailTaken',
  invalid_reset_code: 'signin.error.resetCodeWrong',
  too_many_attempts: 'signin.error.resetTooManyAttempts',
};

/** The input each of those codes concerns. */
const FORM_ERROR_FIELDS: Readonly<Record<string, string>> = {
  invalid_credentials: 'password',
  email_taken: 'email',
  invalid_reset_code: 'code',
  too_many_attempts: 'code',
};

/**
 * The page's error for an `AppError` of a sign-in, sign-up or reset form: what went wrong in the
 * page's language, and the field it concerns. `sent`: what the form posted (a short password is told
 * apart from a weak one, a wrong mailed code from a missing one).
 */
export function formError(
  err: AppError,
  sent: { password?: string | undefined; emailCode?: string | undefined } = {},
): PageMessage {
  const field = typeof err.details?.field === 'string' ? err.details.field : undefined;
  switch (err.code) {
    case 'challenge_required':
      // 400: the bot challenge of the form (BOT_CHALLENGE) was missing or wrong; 401: the account is
      // under guessing, so the mailed code (or a solved challenge) goes with the password (docs/security.md).
      if (err.status !== 401) return { key: 'signin.error.browserCheck' };
      return sent.emailCode
        ? { key: 'signin.error.emailCodeWrong', field: 'email_code' }
        : { key: 'signin.error.accountUnderGuessing', field: 'email_code' };
    case 'weak_password':
      // Too short, one of the most common passwords, or else too easy to guess (zxcvbn's English advice
      // is not repeated: the page says what to do in its own language).
      if (sent.password !== undefined && sent.password.length < MIN_PASSWORD_LENGTH) {
        return { key: 'signin.error.passwordTooShort', values: { min: MIN_PASSWORD_LENGTH }, field };
      }
      if (err.message === COMMON_PASSWORD_HINT) return { key: 'signin.error.commonPassword', field };
      return { key: 'signin.error.weakPassword', field };
    case 'invalid_request':
      if (field === 'email') return { key: 'signin.error.invalidEmail', field };
      return { key: 'signin.error.other', field };
    default: {
      const key = FORM_ERRORS[err.code];
      return key ? { key, field: FORM_ERROR_FIELDS[err.code] } : { key: 'signin.error.other', field };
    }
  }
}
