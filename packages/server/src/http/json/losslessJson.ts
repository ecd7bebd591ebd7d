/**
 * JSON text with integers written exactly as given. `JSON.stringify` can only write a number it
 * holds as a float64, which rounds 19-digit slot ids; a `JsonRawNumber` carries the digits instead,
 * and `stringifyLossless` writes them unquoted without ever making a JavaScript number of them.
 */
export class JsonRawNumber {
  readonly digits: string;
  constructor(digits: string | bigint) {
    const text = typeof digits === 'bigint' ? digits.toString() : digits;
    if (!/^-?(0|[1-9]\d*)$/.test(text)) throw new TypeError(`not an integer literal: ${text}`);
    this.digits = text;
  }
}

/** Serialises like `JSON.stringify(value)`, plus `JsonRawNumber` and `bigint` as bare integer literals. */
export function stringifyLossless(value: unknown): string {
  const text = write(value);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}

function write(value: unknown): string | undefined {
  if (value === null) return 'null';
  if (value instanceof JsonRawNumber) return value.digits;
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  const object = value as { toJSON?: () => unknown };
  if (typeof object.toJSON === 'function') return write(object.toJSON());
  if (Array.isArray(value)) return `[${value.map((item) => write(item) ?? 'null').join(',')}]`;
  const members: string[] = [];
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    const text = write(member);
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(',')}}`;
}
