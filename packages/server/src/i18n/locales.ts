import { match } from '@formatjs/intl-localematcher';
import Negotiator from 'negotiator';

/**
 * The locales of the player-facing pages and mails (decisions §9): each has a complete catalogue
 * (test/i18n/catalogues.test.ts keeps them so). `en` is the default and the fallback.
 */
export const SUPPORTED_LOCALES = [
  'en',
  'es',
  'pt-BR',
  'fr',
  'de',
  'ja',
  'ko',
  'zh-Hans',
  'ru',
  'ar',
] as const;
export type Locale = (typeof SUPPORTED_LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

/** The cookie the language switcher sets (decisions §9: after `ui_locales`, before `Accept-Language`). */
export const LOCALE_COOKIE = 'dauth_locale';

/** Each locale's name in its own language, for the language switcher (never translated). */
export const LOCALE_NAMES: Readonly<Record<Locale, string>> = {
  en: 'English',
  es: 'Español',
  'pt-BR': 'Português (Brasil)',
  fr: 'Français',
  de: 'Deutsch',
  ja: '日本語',
  ko: '한국어',
  'zh-Hans': '简体中文',
  ru: 'Русский',
  ar: 'العربية',
};

const RIGHT_TO_LEFT: ReadonlySet<Locale> = new Set<Locale>(['ar']);

export function textDirection(locale: Locale): 'ltr' | 'rtl' {
  return RIGHT_TO_LEFT.has(locale) ? 'rtl' : 'ltr';
}

export function isSupportedLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (SUPPORTED_LOCALES as readonly string[]).includes(value);
}

/**
 * The supported locale closest to a list of BCP 47 tags in order of preference, or undefined when none
 * is close (CLDR's language matching: `zh-CN` → `zh-Hans`, `pt` and `pt-PT` → `pt-BR`, `es-MX` → `es`).
 */
export function closestLocale(requested: readonly string[]): Locale | undefined {
  const tags = requested.map(canonicalTag).filter((tag): tag is string => tag !== undefined);
  if (tags.length === 0) return undefined;
  // The matcher answers its default when nothing is close; an impossible tag tells "none" from "en".
  const none = 'und';
  const found = match(tags, SUPPORTED_LOCALES, none, { algorithm: 'best fit' });
  return isSupportedLocale(found) ? found : undefined;
}

function canonicalTag(tag: string): string | undefined {
  if (tag.length === 0 || tag.length > 35 || tag === '*') return undefined;
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined; // not a well-formed BCP 47 tag: ignored, as a browser's junk would be
  }
}

export interface LocaleSources {
  /** OpenID Connect `ui_locales`: space-separated tags in order of preference (kept for the flow). */
  uiLocales?: string | undefined;
  /** The `dauth_locale` cookie the language switcher sets. */
  cookie?: string | undefined;
  /** The browser's `Accept-Language` header. */
  acceptLanguage?: string | undefined;
}

/** decisions §9: `ui_locales`, then the `dauth_locale` cookie, then `Accept-Language`, then English. */
export function negotiateLocale(sources: LocaleSources): Locale {
  const fromUiLocales = sources.uiLocales
    ? closestLocale(sources.uiLocales.split(/\s+/).slice(0, 10))
    : undefined;
  if (fromUiLocales) return fromUiLocales;
  if (isSupportedLocale(sources.cookie)) return sources.cookie;
  if (sources.acceptLanguage) {
    const languages = new Negotiator({
      headers: { 'accept-language': sources.acceptLanguage.slice(0, 1024) },
    })
      .languages()
      .slice(0, 10);
    const fromHeader = closestLocale(languages);
    if (fromHeader) return fromHeader;
  }
  return DEFAULT_LOCALE;
}
