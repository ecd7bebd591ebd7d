import { IntlMessageFormat } from '../vendor/intl-messageformat.js';
import { CATALOGUES, DEFAULT_LOCALE, type Locale, LOCALES, type MessageKey } from './catalogues/index.js';
import { pickLocale, textDirection } from './locale.js';

/**
 * The console's strings (docs/console.md, "Language"): every sentence a page shows is an ICU message of
 * `catalogues/`, formatted by FormatJS' intl-messageformat (vendored: `scripts/vendor.mjs`) with the
 * plural rules and number formats of the console's locale. Pages name a message by its literal key
 * (`t('console.apps.title')`), so a test can check that every key is used and every key used exists.
 */
export type MessageValue = string | number | Date;

/** The locale of this page: the browser's preferred languages among the catalogues present. */
export const locale: Locale = pickLocale(
  typeof navigator === 'undefined' ? [] : (navigator.languages ?? [navigator.language]),
  LOCALES,
  DEFAULT_LOCALE,
);

/** Sets `<html lang dir>` to the console's locale (screen readers pick their voice from it). */
export function applyLocale(root: HTMLElement = document.documentElement): void {
  root.lang = locale;
  root.dir = textDirection(locale);
}

/** Compiled messages by key: parsing ICU is the costly part, done once per message. */
const compiled = new Map<MessageKey, IntlMessageFormat>();
function messageFormat(key: MessageKey): IntlMessageFormat {
  let format = compiled.get(key);
  if (!format) {
    format = new IntlMessageFormat(CATALOGUES[locale][key], locale, undefined, { ignoreTag: false });
    compiled.set(key, format);
  }
  return format;
}

/** A message as plain text (the element builder puts it in `textContent`). */
export function t(key: MessageKey, values?: Readonly<Record<string, MessageValue>>): string {
  return String(messageFormat(key).format(values));
}

/** What `rich` answers: text and elements, in the message's order, to hand to `h()`. */
export type RichContent = (string | Node)[];

/**
 * A message whose values or tags are elements: `{amount}` an `<span class=amount>`, `<link>…</link>` an
 * `<a>` around the translated words. The translator decides the word order; nothing is concatenated here.
 */
export function rich(
  key: MessageKey,
  values: Readonly<Record<string, MessageValue | Node>> = {},
  tags: Readonly<Record<string, (children: RichContent) => Node>> = {},
): RichContent {
  const args: Record<string, unknown> = { ...values };
  for (const [name, render] of Object.entries(tags)) {
    args[name] = (chunks: unknown[]) => render(flatten(chunks));
  }
  return flatten([messageFormat(key).format(args as Record<string, never>)]);
}

function flatten(chunks: unknown[]): RichContent {
  return chunks.flatMap((chunk): RichContent => {
    if (Array.isArray(chunk)) return flatten(chunk);
    if (typeof Node !== 'undefined' && chunk instanceof Node) return [chunk];
    return [String(chunk)];
  });
}

/** `1234567` → `1,234,567` in the console's locale; a decimal string of any length stays exact. */
export function formatInteger(value: number | bigint | string): string {
  const n = typeof value === 'string' ? (/^-?\d+$/.test(value) ? BigInt(value) : Number(value)) : value;
  return integerFormat.format(n);
}
const integerFormat = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });

/** An axis number in the locale's own way: big ones shortened (1,500,000 → 1.5M), small ones to six decimals. */
export function formatCompact(value: number): string {
  return (Math.abs(value) >= 1000 ? compactFormat : smallFormat).format(value);
}
const compactFormat = new Intl.NumberFormat(locale, { notation: 'compact', maximumFractionDigits: 2 });
const smallFormat = new Intl.NumberFormat(locale, { maximumFractionDigits: 6 });

/** Elements as a list in the locale's way (`a, b, c` in English, `a、b、c` in Japanese), for `h()`. */
export function list(items: readonly Node[]): RichContent {
  const parts = listFormat.formatToParts(items.map((_item, i) => `\u0000${i}\u0000`));
  return parts.map((part) =>
    part.type === 'element' ? (items[Number(part.value.slice(1, -1))] ?? part.value) : part.value,
  );
}
const listFormat = new Intl.ListFormat(locale, { style: 'short', type: 'unit' });
