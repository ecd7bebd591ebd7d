/**
 * A JSON parser and serializer that never pass an integer through a float.
 *
 * Node 20's JSON.parse turns the 19-digit slot id 1234567890123456789 into 1234567890123456800, and
 * it has neither `JSON.rawJSON` nor the reviver's source-text argument. So dauth bodies are parsed
 * here instead: an integer literal outside the safe range becomes a `bigint` with its exact digits;
 * every other value comes out exactly as JSON.parse would give it.
 */

export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

// Deep enough for any dauth body, shallow enough that hostile input cannot exhaust the stack.
const MAX_DEPTH = 256;
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;

export function parseJson(text: string): JsonValue {
  let pos = 0;

  const fail = (what: string): never => {
    throw new SyntaxError(`Invalid JSON: ${what} at position ${pos}`);
  };
  const skipWhitespace = (): void => {
    WHITESPACE.lastIndex = pos;
    WHITESPACE.test(text);
    pos = WHITESPACE.lastIndex;
  };
  const expect = (char: string): void => {
    if (text[pos] !== char) fail(`expected '${char}'`);
    pos += 1;
  };

  const parseString = (): string => {
    const start = pos;
    expect('"');
    for (;;) {
      const char = text.charCodeAt(pos);
      if (Number.isNaN(char)) fail('unterminated string');
      if (char === 0x22) break;
      if (char < 0x20) fail('control character in string');
      pos += char === 0x5c ? 2 : 1;
    }
    pos += 1;
    // The slice is a complete, well-delimited JSON string; JSON.parse decodes its escapes exactly
    // (and rejects bad ones), so escape handling is not reimplemented here.
    return JSON.parse(text.slice(start, pos)) as string;
  };

  const parseNumber = (): number | bigint => {
    NUMBER.lastIndex = pos;
    const match = NUMBER.exec(text);
    if (!match) return fail('unexpected character');
    pos = NUMBER.lastIndex;
    const literal = match[0];
    const value = Number(literal);
    const isIntegerLiteral = match[1] === undefined && match[2] === undefined;
    return isIntegerLiteral && !Number.isSafeInteger(value) ? BigInt(literal) : value;
  };

  const parseLiteral = <T>(word: string, value: T): T => {
    if (!text.startsWith(word, pos)) fail('unexpected character');
    pos += word.length;
    return value;
  };

  const parseValue = (depth: number): JsonValue => {
    if (depth > MAX_DEPTH) fail('nesting too deep');
    skipWhitespace();
    const char = text[pos];
    let value: JsonValue;
    if (char === '{') value = parseObject(depth);
    else if (char === '[') value = parseArray(depth);
    else if (char === '"') value = parseString();
    else if (char === 't') value = parseLiteral('true', true);
    else if (char === 'f') value = parseLiteral('false', false);
    else if (char === 'n') value = parseLiteral('null', null);
    else if (char === undefined) value = fail('unexpected end of input');
    else value = parseNumber();
    skipWhitespace();
    return value;
  };

  const parseArray = (depth: number): JsonValue[] => {
    const items: JsonValue[] = [];
    expect('[');
    skipWhitespace();
    if (text[pos] === ']') {
      pos += 1;
      return items;
    }
    for (;;) {
      items.push(parseValue(depth + 1));
      if (text[pos] === ']') break;
      expect(',');
    }
    pos += 1;
    return items;
  };

  const parseObject = (depth: number): JsonObject => {
    const object: JsonObject = {};
    expect('{');
    skipWhitespace();
    if (text[pos] === '}') {
      pos += 1;
      return object;
    }
    for (;;) {
      skipWhitespace();
      const key = parseString();
      skipWhitespace();
      expect(':');
      // defineProperty, not assignment: a "__proto__" key must become data, as with JSON.parse.
      Object.defineProperty(object, key, {
        value: parseValue(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      if (text[pos] === '}') break;
      expect(',');
    }
    pos += 1;
    return object;
  };

  const result = parseValue(0);
  if (pos !== text.length) fail('unexpected trailing characters');
  return result;
}

/**
 * Values that write their own JSON text. `stringifyJson` emits that text verbatim, which is how a
 * `SlotId` of the number kind goes back out as a raw 19-digit number.
 */
export interface RawJsonWriter {
  toRawJson(): string;
}

function isRawJsonWriter(value: object): value is RawJsonWriter {
  return typeof (value as Partial<RawJsonWriter>).toRawJson === 'function';
}

/**
 * JSON.stringify's counterpart to `parseJson`: `bigint` becomes a raw integer and `RawJsonWriter`
 * values (such as `SlotId`) write themselves; everything else follows JSON.stringify's rules
 * (toJSON, undefined and functions dropped from objects and turned into null in arrays).
 */
export function stringifyJson(value: unknown): string {
  const text = write(value);
  if (text === undefined) throw new TypeError('Value has no JSON representation');
  return text;
}

function write(value: unknown): string | undefined {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (isRawJsonWriter(value)) return value.toRawJson();
  const withToJson = value as { toJSON?: () => unknown };
  if (typeof withToJson.toJSON === 'function') return write(withToJson.toJSON());
  if (Array.isArray(value)) return `[${value.map((item) => write(item) ?? 'null').join(',')}]`;
  const members: string[] = [];
  for (const [key, member] of Object.entries(value)) {
    const text = write(member);
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(',')}}`;
}
