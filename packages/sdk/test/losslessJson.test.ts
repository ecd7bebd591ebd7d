import { describe, expect, it } from 'vitest';
import { parseJson, SlotId, stringifyJson } from '../src/index.js';

describe('parseJson', () => {
  it('keeps integers beyond 2^53 exact as bigint', () => {
    expect(parseJson('{"id":1234567890123456789}')).toEqual({ id: 1234567890123456789n });
    expect(parseJson('[9999999999999999999,-9223372036854775809]')).toEqual([
      9999999999999999999n,
      -9223372036854775809n,
    ]);
    // JSON.parse, for comparison, rounds the same text.
    expect((JSON.parse('{"id":1234567890123456789}') as { id: number }).id).toBe(1234567890123456800);
  });

  it('keeps safe integers and every non-integer literal as number', () => {
    expect(parseJson('[0,-0,42,9007199254740991,-9007199254740991,1.5,2.5e3,1e400]')).toEqual([
      0,
      -0,
      42,
      9007199254740991,
      -9007199254740991,
      1.5,
      2500,
      Infinity,
    ]);
    expect(parseJson('9007199254740992')).toBe(9007199254740992n);
  });

  it('agrees with JSON.parse on ordinary documents', () => {
    const documents = [
      '{"a":[1,2,{"b":null}],"c":"d\\u00e9\\n\\"q\\"\\\\","e":true,"f":false}',
      ' \n\t{ "nested" : { "deeper" : [ [ ] , { } , "" ] } } \r\n',
      '"\\ud83d\\ude00 emoji"',
      '[1.25,-3e-2,"\\/slash"]',
      '{"dup":1,"dup":2}',
    ];
    for (const text of documents) expect(parseJson(text)).toEqual(JSON.parse(text));
  });

  it('rejects what JSON.parse rejects', () => {
    const invalid = [
      '',
      '{',
      '{"a":1,}',
      '[1,]',
      '01',
      '+1',
      '.5',
      '1.',
      "{'a':1}",
      '{a:1}',
      'NaN',
      'Infinity',
      '"unterminated',
      '"tab\there"',
      '"\\x41"',
      '[1] 2',
      'nul',
      'truex',
    ];
    for (const text of invalid) {
      expect(() => JSON.parse(text), text).toThrow(SyntaxError);
      expect(() => parseJson(text), text).toThrow(SyntaxError);
    }
  });

  it('stores a "__proto__" key as data, not as the prototype', () => {
    const value = parseJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses hostile nesting instead of overflowing the stack', () => {
    expect(() => parseJson('['.repeat(100_000))).toThrow(/nesting too deep/);
  });
});

describe('stringifyJson', () => {
  it('writes bigint as a raw integer and a SlotId in its original kind', () => {
    const value = {
      big: 1234567890123456789n,
      fromNumber: new SlotId('9999999999999999999', 'number'),
      fromString: new SlotId('1234567890123456789', 'string'),
      skipped: undefined,
      list: [undefined, 1, 'x'],
      when: new Date(0),
    };
    expect(stringifyJson(value)).toBe(
      '{"big":1234567890123456789,"fromNumber":9999999999999999999,"fromString":"1234567890123456789",' +
        '"list":[null,1,"x"],"when":"1970-01-01T00:00:00.000Z"}',
    );
  });

  it('round-trips through parseJson without losing a digit', () => {
    const text = '{"data":[{"id":1234567890123456789,"legacy":"9223372036854775808","n":1.5}]}';
    expect(stringifyJson(parseJson(text))).toBe(text);
  });

  it('leaves a SlotId as a string for plain JSON.stringify', () => {
    expect(JSON.stringify({ id: new SlotId('1234567890123456789', 'number') })).toBe(
      '{"id":"1234567890123456789"}',
    );
  });
});
