import { h } from './dom.js';
import type { MessageKey } from './i18n/catalogues/index.js';
import { formatInteger, locale, t } from './i18n/translator.js';

/**
 * How the console writes dates and amounts, in one place so every page says them the same way:
 * days as `2026-11-23`, moments as `2026-11-23 23:40 UTC` (the service's days are UTC days, so are
 * the console's; ISO dates read the same in every language); ether and the platform token in their
 * units with the exact base value on hover, their digits grouped as the console's locale groups them.
 */

const pad = (n: number) => String(n).padStart(2, '0');

function toDate(value: string | number | Date): Date | undefined {
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** `2026-11-23` (UTC). */
export function formatDay(value: string | number | Date): string {
  const date = toDate(value);
  return date ? date.toISOString().slice(0, 10) : String(value);
}

/** `2026-11-23 23:40 UTC`. */
export function formatTime(value: string | number | Date): string {
  const date = toDate(value);
  if (!date) return String(value);
  return `${formatDay(date)} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())} UTC`;
}

/** `1234567` → `1,234,567` (any length: the digits are never turned into a float). */
export function groupDigits(digits: string): string {
  return /^\d+$/.test(digits) ? formatInteger(BigInt(digits)) : digits;
}

/** The locale's decimal separator (`.` in English, `,` in German). */
const DECIMAL =
  new Intl.NumberFormat(locale).formatToParts(1.5).find((part) => part.type === 'decimal')?.value ?? '.';

/** At most this many decimals are shown; the exact value is in the title. */
const SHOWN_DECIMALS = 6;

/**
 * A base-unit integer (wei, token base units) in whole units with `decimals` decimals, exactly, then cut
 * to six decimals: `1500000000000000000`, 18 → `1.5`; a cut value starts with `≈`.
 */
export function formatUnits(raw: string, decimals: number): string {
  if (!/^\d+$/.test(raw)) return raw;
  const padded = raw.padStart(decimals + 1, '0');
  const whole = padded.slice(0, padded.length - decimals);
  const fraction = padded.slice(padded.length - decimals).replace(/0+$/, '');
  const shown = fraction.slice(0, SHOWN_DECIMALS);
  const approximate = shown.length < fraction.length;
  const text = `${groupDigits(whole)}${shown ? `${DECIMAL}${shown}` : ''}`;
  return approximate ? t('console.amount.approximate', { amount: text }) : text;
}

export type AmountKind = 'ether' | 'token' | 'units';

/** The native currency, the platform ERC-20 (18 decimals), content tokens: decimals and their messages. */
const KINDS: Record<AmountKind, { decimals: number; text: MessageKey; exact: MessageKey }> = {
  ether: { decimals: 18, text: 'console.amount.ether', exact: 'console.amount.exact.ether' },
  token: { decimals: 18, text: 'console.amount.token', exact: 'console.amount.exact.token' },
  units: { decimals: 0, text: 'console.amount.units', exact: 'console.amount.exact.units' },
};

/** An amount as text in its unit: `1.5 ETH`, `250,000 units`. */
export function amountText(raw: string, kind: AmountKind): string {
  const { decimals, text } = KINDS[kind];
  // The plural category of content units (`1 unit`); a huge count only needs to be "many".
  const count = /^\d+$/.test(raw) ? Number(raw) : 0;
  return t(text, { amount: formatUnits(raw, decimals), count });
}

/** An amount in its unit, with the exact base value on hover (`title`): `1.5 ETH` / `1500000000000000000 wei`. */
export function amount(raw: string, kind: AmountKind): HTMLElement {
  return h(
    'span',
    { class: 'amount', title: t(KINDS[kind].exact, { raw }), 'data-raw': raw },
    amountText(raw, kind),
  );
}
