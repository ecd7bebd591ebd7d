import { describe, expect, it } from 'vitest';
import { jsonOncePer } from '../../src/http/json/jsonOncePer.js';

describe('jsonOncePer', () => {
  it('writes a source’s answer once and hands the same text to every later request for it', () => {
    let written = 0;
    const answerOf = jsonOncePer((source: { id: string; n: number }) => {
      written++;
      return { success: true, id: source.id, n: source.n };
    });
    const first = { id: 'a"b', n: 1 };
    const second = { id: 'c', n: 2 };
    expect(answerOf(first)).toBe('{"success":true,"id":"a\\"b","n":1}');
    expect(answerOf(first)).toBe('{"success":true,"id":"a\\"b","n":1}');
    expect(written).toBe(1);
    // Another object is another source, even with equal fields: its own text, written for it.
    expect(answerOf(second)).toBe('{"success":true,"id":"c","n":2}');
    expect(answerOf({ ...first })).toBe(answerOf(first));
    expect(written).toBe(3);
  });
});
