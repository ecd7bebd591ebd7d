import { DEFAULT_LOCALE, type Locale } from '../../i18n/locales.js';
import { type Translator, translatorFor } from '../../i18n/translator.js';

/**
 * The translator of a mail to an account (decisions §9): the account's saved language (`users.locale`),
 * English when it is unknown. Every mail's words come from the `mail` catalogue through it.
 */
export function mailTranslator(locale: Locale | undefined): Translator {
  return translatorFor(locale ?? DEFAULT_LOCALE);
}

/** A mail body from its lines: each message a paragraph or a line of its own, `''` a blank line. */
export const mailBody = (lines: readonly string[]): string => lines.join('\n');

/** Where a change or a sign-in attempt came from, as a mail reports it. */
export interface MailOrigin {
  /** Unix ms. */
  at: number;
  /** The /24 or /48 it came from. */
  network: string | undefined;
  /** Its user agent, control characters removed, at most 200 characters. */
  device: string | undefined;
}

/** The when/network/device lines of a security or guessing mail, in the translator's language. */
export function originLines(
  tr: Translator,
  origin: MailOrigin,
  networkLine: 'mail.network' | 'mail.lastNetwork' = 'mail.network',
): string[] {
  const unknown = tr.t('mail.unknown');
  return [
    tr.t('mail.when', { at: new Date(origin.at) }),
    tr.t(networkLine, { network: origin.network ?? unknown }),
    tr.t('mail.device', { device: origin.device || unknown }),
  ];
}
