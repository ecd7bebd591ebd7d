import { describe, expect, it } from 'vitest';
import { JsonRawNumber, stringifyLossless } from '../../src/http/json/losslessJson.js';
import { slotIdJson } from '../../src/http/json/slotJson.js';
import { isSlotId, newSlotId } from '../../src/services/slots/slotId.js';

describe('lossless JSON and slot ids', () => {
  it('writes raw integers digit for digit, where JSON.stringify of a number would round', () => {
    const id = '9999999999999999999';
    expect(JSON.stringify({ id: Number(id) })).toBe('{"id":10000000000000000000}');
    expect(
      stringifyLossless({
        id: new JsonRawNumber(id),
        n: 1,
        s: 'x"y',
        a: [true, null, undefined],
        u: undefined,
      }),
    ).toBe('{"id":9999999999999999999,"n":1,"s":"x\\"y","a":[true,null,null]}');
    expect(stringifyLossless({ big: 12345678901234567890n, date: new Date(0) })).toBe(
      '{"big":12345678901234567890,"date":"1970-01-01T00:00:00.000Z"}',
    );
    // Whatever JSON.stringify accepts comes out the same.
    const sample = { a: 1.5, b: [1, 'two', { c: false }], d: 'é\u2028', e: -0, f: Number.NaN };
    expect(stringifyLossless(sample)).toBe(JSON.stringify(sample));
    // Nested anywhere, in arrays and under toJSON, and at the top.
    expect(stringifyLossless([{ n: [new JsonRawNumber('-12345678901234567890')] }, 7n])).toBe(
      '[{"n":[-12345678901234567890]},7]',
    );
    expect(stringifyLossless(new JsonRawNumber('0'))).toBe('0');
    expect(() => stringifyLossless(undefined)).toThrow(TypeError);
    const cycle: Record<string, unknown> = { big: 1n };
    cycle.self = cycle;
    expect(() => stringifyLossless(cycle)).toThrow(TypeError);
    expect(() => new JsonRawNumber('1e5')).toThrow(TypeError);
    expect(() => new JsonRawNumber('01')).toThrow(TypeError);
  });

  it('writes new slot ids as raw numbers and imported ones as strings', () => {
    expect(stringifyLossless({ id: slotIdJson({ id: '1234567890123456789', imported: false }) })).toBe(
      '{"id":1234567890123456789}',
    );
    expect(stringifyLossless({ id: slotIdJson({ id: '1234567890123456789', imported: true }) })).toBe(
      '{"id":"1234567890123456789"}',
    );
  });

  it('draws 19-digit ids over the whole range', () => {
    const ids = Array.from({ length: 2000 }, newSlotId);
    for (const id of ids) {
      expect(id).toMatch(/^[1-9]\d{18}$/);
      expect(isSlotId(id)).toBe(true);
    }
    expect(new Set(ids).size).toBe(ids.length);
    const leading = new Set(ids.map((id) => id[0]));
    expect(leading.size).toBe(9);
    expect(isSlotId('0')).toBe(false);
    expect(isSlotId('12345678901234567890')).toBe(false);
  });
});
