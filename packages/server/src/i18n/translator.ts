import { IntlMessageFormat } from 'intl-messageformat';
import { escapeHtml, SafeHtml } from '../http/pages/html.js';
import { CATALOGUES, type MessageKey } from './catalogues/index.js';
import { type Locale, textDirection } from './locales.js';

/** A value an ICU message may name: text, a number (plurals, `{n, number}`) or a date (`{d, date, medium}`). */
export type MessageValue = string | number | Date;

/** Wraps a tag's content in markup: `<app>{name}</app>` in a message, `app: (inner) => html\`<b>${inner}</b>\`` here. */
export type TagRenderer = (inner: SafeHtml) => SafeHtml;

/** The strings of one locale. Formats ICU messages with that locale's plural rules, numbers and dates. */
export interface Translator {
  readonly locale: Locale;
  readonly dir: 'ltr' | 'rtl';
  /** The message as plain text (the page templates escape it). */
  t(key: MessageKey, values?: Readonly<Record<string, MessageValue>>): string;
  /**
   * The message as HTML: its text and every value escaped, its tags (`<app>…</app>`) rendered by `tags`.
   * For sentences that put markup around a value, so word order stays the translator's.
   */
  rich(
    key: MessageKey,
    values?: Readonly<Record<string, MessageValue | SafeHtml>>,
    tags?: Readonly<Record<string, TagRenderer>>,
  ): SafeHtml;
}

/**
 * Named formats besides ICU's `short`, `medium`, `long` and `full`: `{at, date, utc}` is a moment as date and
 * time in UTC, zone named (a mail's reader is anywhere; the server's own zone would mean nothing to them).
 */
const FORMATS = {
  date: { utc: { dateStyle: 'medium', timeStyle: 'long', timeZone: 'UTC' } },
} as const;

/** Compiled messages, per locale and key: parsing ICU is the costly part, done once per message. */
const compiled = new Map<string, IntlMessageFormat>();

function messageFormat(locale: Locale, key: MessageKey): IntlMessageFormat {
  const cacheKey = `${locale}\u0000${key}`;
  let format = compiled.get(cacheKey);
  if (!format) {
    format = new IntlMessageFormat(CATALOGUES[locale][key], locale, FORMATS, { ignoreTag: false });
    compiled.set(cacheKey, format);
  }
  return format;
}

function toHtml(chunk: unknown): string {
  if (chunk instanceof SafeHtml) return chunk.html;
  if (Array.isArray(chunk)) return chunk.map(toHtml).join('');
  return escapeHtml(String(chunk));
}

const translators = new Map<Locale, Translator>();

export function translatorFor(locale: Locale): Translator {
  let translator = translators.get(locale);
  if (translator) return translator;
  translator = {
    locale,
    dir: textDirection(locale),
    t(key, values) {
      return String(messageFormat(locale, key).format(values));
    },
    rich(key, values = {}, tags = {}) {
      const args: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(values)) {
        // Text values are escaped here; SafeHtml stays an object so it survives formatting untouched.
        args[name] = typeof value === 'string' ? new SafeHtml(escapeHtml(value)) : value;
      }
      for (const [name, render] of Object.entries(tags)) {
        args[name] = (chunks: unknown[]) => render(new SafeHtml(chunks.map(toHtml).join('')));
      }
      const parts = messageFormat(locale, key).formatToParts(args as Record<string, never>);
      return new SafeHtml(parts.map((part) => toHtml(part.value)).join(''));
    },
  };
  translators.set(locale, translator);
  return translator;
}
