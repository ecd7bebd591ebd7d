import { AppError } from '../../errors.js';
import { ZxcvbnWorker } from './zxcvbnWorker.js';

/**
 * The part of a new password zxcvbn looks at. Its matchers grow faster than linearly with the length
 * (measured: 64 symbol-heavy characters took 40 ms, 32 take at most 10 ms); 32 characters already score
 * 4 unless they are a pattern, and whatever comes after them only adds strength.
 */
export const STRENGTH_CHECKED_LENGTH = 32;

/** How many l33t substitutions zxcvbn tries (its default, 100, makes symbol-heavy passwords cost hundreds of ms). */
export const L33T_MAX_SUBSTITUTIONS = 4;

/** The hint for a password of the common-password list (the sign-in pages tell it apart, in their language). */
export const COMMON_PASSWORD_HINT = 'This password is one of the most common passwords; choose another.';

/** Where the refused password is named in the error's details, by route. */
type PasswordField = 'password' | 'new_password';

/**
 * Refuses weak new passwords (decisions §9, docs/security.md "Weak passwords"): a zxcvbn score below
 * `PASSWORD_MIN_SCORE` with the account's e-mail and nickname as user inputs, or a password of the
 * common-password list (any case), is 400 `weak_password` with a hint the pages show.
 */
export class PasswordStrength {
  readonly #zxcvbn = new ZxcvbnWorker({
    maxLength: STRENGTH_CHECKED_LENGTH,
    l33tMaxSubstitutions: L33T_MAX_SUBSTITUTIONS,
  });

  constructor(private readonly minScore: number) {}

  /**
   * The hint for a weak password, or undefined when it is strong enough. zxcvbn runs on a thread of its
   * own (`ZxcvbnWorker`): the first check waits for its dictionaries (0.2–0.3 s), none holds the event loop.
   */
  async weakness(
    password: string,
    userInputs: (string | undefined | null)[] = [],
  ): Promise<string | undefined> {
    const inputs = userInputs.flatMap((input) => {
      if (!input) return [];
      const text = input.trim().toLowerCase();
      // The e-mail's local part and domain words too: "alice2024" is weak for alice@example.com.
      return [text, ...text.split(/[@.+_-]+/).filter((part) => part.length >= 3)];
    });
    const verdict = await this.#zxcvbn.verdict(password, inputs, this.minScore > 0);
    if (verdict.common) return COMMON_PASSWORD_HINT;
    if (verdict.score === undefined || verdict.score >= this.minScore) return undefined;
    const advice = [verdict.warning, ...(verdict.suggestions ?? [])].filter(
      (s): s is string => !!s && s.length > 0,
    );
    return (
      `This password is too easy to guess. ${advice.join(' ')}`.trim() ||
      'This password is too easy to guess.'
    );
  }

  /** 400 `weak_password` with the hint as its message when the password is weak. */
  async check(
    password: string,
    userInputs: (string | undefined | null)[],
    field: PasswordField = 'password',
  ): Promise<void> {
    const hint = await this.weakness(password, userInputs);
    if (hint !== undefined) throw new AppError(400, 'weak_password', hint, { field });
  }

  /** Stops the checker's thread (the service's close). */
  close(): Promise<void> {
    return this.#zxcvbn.close();
  }
}
