import type { FastifyRequest } from 'fastify';
import {
  closestLocale,
  DEFAULT_LOCALE,
  type Locale,
  LOCALE_COOKIE,
  negotiateLocale,
} from '../i18n/locales.js';
import { cookieOf } from './cookies.js';

/**
 * The language a sign-up request speaks (decisions §9), for the account it creates: the `dauth_locale` cookie,
 * then `Accept-Language`; undefined when neither names a supported locale (`Accept-Language: *`, which Node's
 * fetch sends, or none), so the account's language stays unknown (English) rather than "chosen English".
 */
export function requestLocale(request: FastifyRequest): Locale | undefined {
  const cookie = cookieOf(request, LOCALE_COOKIE);
  const acceptLanguage = request.headers['accept-language'];
  const locale = negotiateLocale({ cookie, acceptLanguage });
  if (locale !== DEFAULT_LOCALE) return locale;
  // English either because it was asked for or because nothing was: only the first is the account's choice.
  const asked = (acceptLanguage ?? '')
    .slice(0, 1024)
    .split(',')
    .map((part) => part.split(';')[0]!.trim())
    .slice(0, 10);
  return cookie === DEFAULT_LOCALE || closestLocale(asked) === DEFAULT_LOCALE ? DEFAULT_LOCALE : undefined;
}
