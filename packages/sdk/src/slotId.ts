import type { RawJsonWriter } from './losslessJson.js';

/** How the service wrote the id: a raw JSON number (new slots) or a decimal string (imported slots). */
export type SlotIdKind = 'number' | 'string';

const DECIMAL = /^\d+$/;

/**
 * A slot id, kept exact. Ids have up to 19 digits, beyond both 2^53 (JavaScript numbers) and 2^63
 * (signed 64-bit), so the value is held as its decimal text together with the JSON kind it came in.
 *
 * `JSON.stringify` writes it as a string (never a lossy number); `stringifyJson` writes it back in
 * its original kind.
 */
export class SlotId implements RawJsonWriter {
  /** The decimal digits, exactly as the service sent them. */
  readonly value: string;
  readonly kind: SlotIdKind;

  constructor(value: string, kind: SlotIdKind) {
    if (!DECIMAL.test(value))
      throw new TypeError(`A slot id must be decimal digits, got ${JSON.stringify(value)}`);
    this.value = value;
    this.kind = kind;
  }

  /**
   * Reads the `id` member of a body parsed by `parseJson`. Returns undefined for anything that is
   * not a non-negative integer, including a float that may already have lost digits.
   */
  static fromJson(raw: unknown): SlotId | undefined {
    if (typeof raw === 'bigint') return raw >= 0n ? new SlotId(raw.toString(), 'number') : undefined;
    if (typeof raw === 'number') {
      return Number.isSafeInteger(raw) && raw >= 0 ? new SlotId(String(raw), 'number') : undefined;
    }
    if (typeof raw === 'string' && DECIMAL.test(raw)) return new SlotId(raw, 'string');
    return undefined;
  }

  toBigInt(): bigint {
    return BigInt(this.value);
  }

  equals(other: SlotId): boolean {
    return this.value === other.value && this.kind === other.kind;
  }

  toString(): string {
    return this.value;
  }

  toJSON(): string {
    return this.value;
  }

  toRawJson(): string {
    return this.kind === 'number' ? this.value : JSON.stringify(this.value);
  }
}
