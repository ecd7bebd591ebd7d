import { AppError } from '../../errors.js';

/** The contract keeps balances in uint128; no single amount may exceed it. */
export const MAX_TOKEN_AMOUNT = (1n << 128n) - 1n;
const WEI_PER_ETHER = 10n ** 18n;

const bad = (field: string, message: string) => new AppError(400, 'invalid_amount', message, { field });

/**
 * A purchase amount, "wei or ether" (decisions §6): an integer string is wei; a decimal (`"0.5"`) or a
 * value with the suffix ` ether` (`"2 ether"`, `"0.25 ether"`) is ether, at most 18 decimals. Returns wei,
 * which must be positive and fit the contract's uint128.
 */
export function parseNativeAmount(text: string, field = 'amount'): bigint {
  const trimmed = text.trim();
  const etherSuffix = /^(.*?)\s+ether$/i.exec(trimmed);
  let wei: bigint;
  if (etherSuffix) {
    wei = parseEtherText(etherSuffix[1]!.trim(), field);
  } else if (/^\d+$/.test(trimmed)) {
    wei = BigInt(trimmed);
  } else if (/^\d*\.\d+$|^\d+\.$/.test(trimmed)) {
    wei = parseEtherText(trimmed, field);
  } else {
    throw bad(
      field,
      `${field} must be wei as an integer string, or ether as a decimal or with the suffix " ether"`,
    );
  }
  if (wei <= 0n) throw bad(field, `${field} must be more than zero`);
  if (wei > MAX_TOKEN_AMOUNT) throw bad(field, `${field} is too large`);
  return wei;
}

function parseEtherText(text: string, field: string): bigint {
  const match = /^(\d*)(?:\.(\d*))?$/.exec(text);
  if (!match || (match[1] === '' && (match[2] ?? '') === '')) {
    throw bad(field, `${field} is not a valid ether amount`);
  }
  const fraction = match[2] ?? '';
  if (fraction.length > 18) throw bad(field, `${field} has more than 18 decimals of ether`);
  return BigInt(match[1] || '0') * WEI_PER_ETHER + BigInt(fraction.padEnd(18, '0') || '0');
}

/** A token amount in base units: a positive integer string (or a positive safe-integer JSON number). */
export function parseTokenUnits(value: unknown): bigint | undefined {
  let units: bigint;
  if (typeof value === 'string' && /^\d{1,39}$/.test(value)) units = BigInt(value);
  else if (typeof value === 'number' && Number.isSafeInteger(value)) units = BigInt(value);
  else return undefined;
  return units > 0n && units <= MAX_TOKEN_AMOUNT ? units : undefined;
}

/** A wei amount given by the platform (admin pool funding): a positive integer string. */
export function parseWei(text: string, field = 'amount'): bigint {
  if (!/^\d{1,78}$/.test(text)) throw bad(field, `${field} must be wei as an integer string`);
  const wei = BigInt(text);
  if (wei <= 0n) throw bad(field, `${field} must be more than zero`);
  return wei;
}
