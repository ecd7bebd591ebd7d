import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compile, generatedIndex, packageRoot } from '../scripts/compileContracts.js';

describe('src/generated', () => {
  it('matches a fresh compilation of contracts/ (run `npm run build:contracts -w @dauth/contracts`)', () => {
    const modules = compile();
    const dir = join(packageRoot, 'src', 'generated');
    const names = [...modules.keys()].sort();
    expect(readdirSync(dir).sort()).toEqual([...names.map((name) => `${name}.ts`), 'index.ts'].sort());
    for (const name of names) expect(readFileSync(join(dir, `${name}.ts`), 'utf8')).toBe(modules.get(name));
    expect(readFileSync(join(dir, 'index.ts'), 'utf8')).toBe(generatedIndex(names));
  }, 120_000);
});
