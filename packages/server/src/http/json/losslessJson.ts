/**
 * JSON text with integers written exactly as given. `JSON.stringify` can only write a number it
 * holds as a float64, which rounds 19-digit slot ids; a `JsonRawNumber` carries the digits instead,
 * and `stringifyLossless` writes them unquoted without ever making a JavaScript number of them.
 *
 * Both go through `JSON.rawJSON` (TC39's JSON.parse source-text proposal, shipped by V8 in every Node
 * this service supports, ≥ 22.15), a value `JSON.stringify` writes as the text it holds: the whole
 * answer is one native `JSON.stringify`, where a writer of our own called it once per key and string
 * (48 calls a backend round trip; one call is ≈ 23,000 instructions fewer; docs/performance-backend.md, round 8).
 */

/** `JSON.rawJSON`, which TypeScript's ES2023 library does not declare yet. */
const { rawJSON } = JSON as JSON & { rawJSON(text: string): object };

export class JsonRawNumber {
  readonly digits: string;
  readonly #raw: object;
  constructor(digits: string | bigint) {
    const text = typeof digits === 'bigint' ? digits.toString() : digits;
    if (!/^-?(0|[1-9]\d*)$/.test(text)) throw new TypeError(`not an integer literal: ${text}`);
    this.digits = text;
    this.#raw = rawJSON(text);
  }

  /** What `JSON.stringify` writes for it: the digits, unquoted. */
  toJSON(): object {
    return this.#raw;
  }
}

/** A `bigint` (which `JSON.stringify` refuses) as its bare integer literal; everything else as it is. */
const bigintsAsLiterals = (_key: string, value: unknown): unknown =>
  typeof value === 'bigint' ? rawJSON(value.toString()) : value;

/** Serialises like `JSON.stringify(value)`, plus `JsonRawNumber` and `bigint` as bare integer literals. */
export function stringifyLossless(value: unknown): string {
  let text: string | undefined;
  try {
    // No replacer on the common path: with one, V8 calls back into JavaScript for every key (≈ 4,400
    // instructions a backend round trip), and the service's ids come as JsonRawNumber anyway.
    text = JSON.stringify(value) as string | undefined;
  } catch (err) {
    // A bare bigint (JSON.stringify refuses it with a TypeError): again, through the replacer. A value that
    // has no JSON form for another reason (a cycle) throws the same TypeError again.
    if (!(err instanceof TypeError)) throw err;
    text = JSON.stringify(value, bigintsAsLiterals) as string | undefined;
  }
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}
