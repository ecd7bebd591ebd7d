import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const srcDir = path.resolve(here, '../../src');
const docPath = path.resolve(here, '../../../../docs/errors.md');

/** Every error code the server can answer with, read from the places errors are built. */
function errorCodesInSource(): Set<string> {
  const codes = new Set(['unauthorized', 'forbidden', 'not_found', 'rate_limited', 'chain_unavailable']);
  const patterns = [
    // The status may be a literal or an expression (`new AppError(e.statusCode, 'bad_request', …)`).
    /(?:\b\w*Error|super)\(\s*(?:\d{3}|[\w.]+),\s*'([a-z_]+)'/g,
    /\b(?:badRequest|unauthorized|forbidden|notFound|conflict|locked)\(\s*'([a-z_]+)'/g,
  ];
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(file);
      else if (entry.name.endsWith('.ts')) {
        const text = fs.readFileSync(file, 'utf8');
        for (const pattern of patterns) for (const match of text.matchAll(pattern)) codes.add(match[1]!);
      }
    }
  };
  visit(srcDir);
  return codes;
}

describe('docs/errors.md', () => {
  it('lists every error code the server can answer with, and no code it cannot', () => {
    const doc = fs.readFileSync(docPath, 'utf8');
    const documented = new Set([...doc.matchAll(/^\|\s*`([a-z_]+)`\s*\|/gm)].map((m) => m[1]!));
    const inSource = errorCodesInSource();
    expect(inSource.size).toBeGreaterThan(40);
    expect([...inSource].filter((c) => !documented.has(c)).sort()).toEqual([]);
    expect([...documented].filter((c) => !inSource.has(c)).sort()).toEqual([]);
  });
});
