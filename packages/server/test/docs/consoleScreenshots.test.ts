import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const doc = fs.readFileSync(path.join(root, 'docs/console.md'), 'utf8');
const script = fs.readFileSync(path.join(root, 'packages/server/scripts/consoleScreenshots.ts'), 'utf8');

describe('docs/console.md and its screenshots', () => {
  it('shows every picture `npm run screenshots` takes, and only those', () => {
    const taken = [...script.matchAll(/shoot\(page, '([a-z-]+)'/g)].map((m) => `${m[1]}.png`).sort();
    const inDir = fs
      .readdirSync(path.join(root, 'docs/console'))
      .filter((f) => f.endsWith('.png'))
      .sort();
    const shown = [...doc.matchAll(/\]\(console\/([a-z-]+\.png)\)/g)].map((m) => m[1]!).sort();
    expect(taken.length).toBeGreaterThanOrEqual(12);
    expect(inDir).toEqual(taken);
    expect([...new Set(shown)]).toEqual(taken);
  });
});
