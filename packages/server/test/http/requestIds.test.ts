import { describe, expect, it } from 'vitest';
import { requestIdGenerator } from '../../src/http/requestIds.js';

/** Request ids name one request across replicas and restarts (the audit trail stores them). */
describe('requestIdGenerator', () => {
  it('gives every request of a process its own id, and each process its own random prefix', () => {
    const next = requestIdGenerator();
    const ids = Array.from({ length: 100_000 }, () => next());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of [ids[0]!, ids[99_999]!]) expect(id).toMatch(/^[A-Za-z0-9_-]{16}-[0-9a-z]+$/);
    expect(ids[0]!.endsWith('-0')).toBe(true);
    expect(ids[99_999]!.endsWith(`-${(99_999).toString(36)}`)).toBe(true);

    // A restarted process, or another replica: 200 starts, 200 different prefixes.
    const prefixes = new Set(Array.from({ length: 200 }, () => requestIdGenerator()().slice(0, 16)));
    expect(prefixes.size).toBe(200);
  });
});
