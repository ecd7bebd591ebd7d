import type { FastifyRequest } from 'fastify';
import { LOCALE_COOKIE, negotiateLocale } from '../../i18n/locales.js';
import { type Translator, translatorFor } from '../../i18n/translator.js';
import { cookieOf } from '../cookies.js';

/**
 * The translator of a player-facing page (decisions §9): the flow's `ui_locales` when it carries one
 * (the authorize request's, or the device page's, kept in the forms' hidden fields), then the
 * `dauth_locale` cookie, then `Accept-Language`.
 */
export function pageTranslator(request: FastifyRequest, uiLocales?: string | undefined): Translator {
  return translatorFor(
    negotiateLocale({
      uiLocales,
      cookie: cookieOf(request, LOCALE_COOKIE),
      acceptLanguage: request.headers['accept-language'],
    }),
  );
}

/**
 * Where the language switcher may send the browser back to: a path of this service only (`/…`, never
 * `//host` or `/\host`, which browsers treat as another origin), so the switch is no open redirector.
 */
export function safeReturnPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 4096) return undefined;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return undefined;
  if (/\p{Cc}/u.test(value)) return undefined; // no control characters (header splitting)
  return value;
}
