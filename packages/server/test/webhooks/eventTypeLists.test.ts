import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../src/services/webhooks/webhookEvents.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const read = (file: string) => fs.readFileSync(`${root}${file}`, 'utf8');
/** The quoted event names (`a.b` or `a.b.c`) in `text`, in order, once each. */
const quoted = (text: string) => [
  ...new Set([...text.matchAll(/['"]([a-z_]+(?:\.[a-z_]+){1,2})['"]/g)].map((m) => m[1]!)),
];

describe('every list of webhook event types is the server’s (decisions §8 "Events")', () => {
  const types = [...WEBHOOK_EVENT_TYPES];

  it('the eleven types of decisions §8, session_key.granted and session_key.revoked included, user.deleted and sponsorship.exhausted (§9)', () => {
    expect(types).toHaveLength(13);
    expect(types).toContain('user.deleted');
    expect(types).toContain('sponsorship.exhausted');
    expect(types).toContain('session_key.granted');
    expect(types).toContain('session_key.revoked');
  });

  it('docs/webhooks.md has a row for each type', () => {
    const rows = [...read('docs/webhooks.md').matchAll(/^\| `([a-z_]+\.[a-z_.]+)`\s+\|/gm)].map((m) => m[1]);
    expect(rows).toEqual(types);
  });

  it('the console offers each type', () => {
    const source = read('packages/console/src/pages/webhooks.ts');
    const list = source.slice(
      source.indexOf('const EVENT_TYPES = ['),
      source.indexOf('];', source.indexOf('const EVENT_TYPES = [')),
    );
    expect(quoted(list)).toEqual(types);
  });

  it('the SDKs know each type (TypeScript, Python)', () => {
    const ts = read('packages/sdk/src/webhooks/webhookVerifier.ts');
    for (const type of types) expect(ts).toContain(`'${type}': {`);
    const python = read('sdk/python/dauth_sdk/webhooks.py');
    const tuple = python.slice(
      python.indexOf('EVENT_TYPES = ('),
      python.indexOf(')', python.indexOf('EVENT_TYPES = (')),
    );
    expect(quoted(tuple)).toEqual(types);
  });
});
