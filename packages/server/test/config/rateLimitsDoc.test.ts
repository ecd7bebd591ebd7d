import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseRateLimits, RATE_LIMIT_DEFAULTS, type RateLimit } from '../../src/rateLimitSettings.js';

const SECURITY_DOC = fileURLToPath(new URL('../../../../docs/security.md', import.meta.url));

/** The rows of the table under `## Rate limits` in docs/security.md: name → the default as written. */
function documentedLimits(markdown: string): Map<string, string> {
  const section = markdown.split(/^## Rate limits$/m)[1]?.split(/^## /m)[0];
  if (section === undefined) throw new Error('docs/security.md has no "## Rate limits" section');
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const match = /^\|\s*`([a-z_]+)`\s*\|\s*([^|]+?)\s*\|/.exec(line);
    if (!match) continue;
    const [, name, written] = match as unknown as [string, string, string];
    expect(rows.has(name), `${name} is listed twice`).toBe(false);
    rows.set(name, written);
  }
  return rows;
}

/** A default as the doc writes it (`10/1m`), read with the service's own `RATE_LIMITS` parser. */
function parseDocumented(name: string, written: string): RateLimit {
  const { limits, problems } = parseRateLimits(`${name}=${written}`);
  expect(problems, `${name}: "${written}"`).toEqual([]);
  return limits[name as keyof typeof limits];
}

describe('docs/security.md lists every rate limit with its default', () => {
  const documented = documentedLimits(fs.readFileSync(SECURITY_DOC, 'utf8'));

  it('names exactly the limits rateLimitSettings.ts defines', () => {
    expect([...documented.keys()].sort()).toEqual(Object.keys(RATE_LIMIT_DEFAULTS).sort());
  });

  it.each(Object.entries(RATE_LIMIT_DEFAULTS))(
    '%s: the documented default is the real one',
    (name, limit) => {
      const written = documented.get(name);
      expect(written, `${name} is missing from the table`).toBeDefined();
      expect(parseDocumented(name, written!)).toEqual(limit);
    },
  );
});
