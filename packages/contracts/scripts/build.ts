/**
 * Writes src/generated/<Name>.ts for every contract in contracts/** and the reference artifacts, plus an index.
 * The output is committed and deterministic: CI regenerates it and fails on `git diff --exit-code`, and
 * test/generated.test.ts fails when it is stale.
 *
 *   npm run build:contracts -w @dauth/contracts
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { compile, generatedIndex, packageRoot } from './compileContracts.js';

const outDir = join(packageRoot, 'src', 'generated');

function writeModules(modules: Map<string, string>): void {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const names = [...modules.keys()].sort();
  for (const name of names) writeFileSync(join(outDir, `${name}.ts`), modules.get(name) ?? '');
  writeFileSync(join(outDir, 'index.ts'), generatedIndex(names));
  console.log(
    `wrote ${names.length} modules to ${relative(process.cwd(), outDir) || '.'}: ${names.join(', ')}`,
  );
}

writeModules(compile());
