import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as english from '@zxcvbn-ts/language-en';
import { AppError } from '../../errors.js';

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
  #zxcvbn: ZxcvbnFactory | undefined;
  #common: Set<string> | undefined;

  constructor(private readonly minScore: number) {}

  /** Built on first use (the dictionaries take about 200 ms to rank), not at every start. */
  #load(): { zxcvbn: ZxcvbnFactory; common: Set<string> } {
    this.#zxcvbn ??= new ZxcvbnFactory({
      translations: english.translations,
      graphs: common.adjacencyGraphs,
      dictionary: { ...common.dictionary, ...english.dictionary },
      // Each substitution multiplies the l33t matcher's work: a 64-character password of symbols took 300 ms at the default 100.
      l33tMaxSubstitutions: L33T_MAX_SUBSTITUTIONS,
      maxLength: STRENGTH_CHECKED_LENGTH,
    });
    this.#common ??= new Set(common.dictionary['passwords-common'].map((p) => String(p).toLowerCase()));
    return { zxcvbn: this.#zxcvbn, common: this.#common };
  }

  /** The hint for a weak password, or undefined when it is strong enough. */
  weakness(password: string, userInputs: (string | undefined | null)[] = []): string | undefined {
    const loaded = this.#load();
    const checked = password.slice(0, STRENGTH_CHECKED_LENGTH);
    const inputs = userInputs.flatMap((input) => {
      if (!input) return [];
      const text = input.trim().toLowerCase();
      // The e-mail's local part and domain words too: "alice2024" is weak for alice@example.com.
      return [text, ...text.split(/[@.+_-]+/).filter((part) => part.length >= 3)];
    });
    if (loaded.common.has(password.toLowerCase())) return COMMON_PASSWORD_HINT;
    if (this.minScore === 0) return undefined;
    const result = loaded.zxcvbn.check(checked, inputs);
    if (result.score >= this.minScore) return undefined;
    const { warning, suggestions } = result.feedback;
    const advice = [warning, ...suggestions].filter((s): s is string => !!s && s.length > 0);
    return (
      `This password is too easy to guess. ${advice.join(' ')}`.trim() ||
      'This password is too easy to guess.'
    );
  }

  /** 400 `weak_password` with the hint as its message when the password is weak. */
  check(
    password: string,
    userInputs: (string | undefined | null)[],
    field: PasswordField = 'password',
  ): void {
    const hint = this.weakness(password, userInputs);
    if (hint !== undefined) throw new AppError(400, 'weak_password', hint, { field });
  }
}
