import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const child = fileURLToPath(new URL('./hiddenClassesChild.ts', import.meta.url));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-hidden-classes-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/**
 * Runs the child with its stdout on a file: V8's `%DebugPrint` writes through C's stdio, which drops what a
 * non-blocking pipe does not take at once (Node's pipes are), and a file takes everything.
 */
async function runChild(): Promise<string[]> {
  const outFile = path.join(dataDir, 'child.out');
  const out = fs.openSync(outFile, 'w');
  try {
    const process_ = spawn(
      process.execPath,
      ['--allow-natives-syntax', '--conditions=development', '--import', 'tsx', child, dataDir],
      { stdio: ['ignore', out, 'inherit'], timeout: 100_000 },
    );
    const [code] = (await once(process_, 'exit')) as [number | null];
    expect(code).toBe(0);
  } finally {
    fs.closeSync(out);
  }
  return fs.readFileSync(outFile, 'utf8').split('\n');
}

/**
 * Start-up filled V8's root object map with about a thousand dead transitions (fast-json-stringify's and
 * ajv's generated names), so until the next mark-compact every request's `headers` object got a hidden class
 * of its own (src/startupGarbage.ts). And every full collection that found no `process.nextTick` record
 * alive freed their hidden class, so the next records got a new one (one each while the root map was full):
 * nextTick's inline caches went megamorphic for the life of the process (src/tickObjectShape.ts). A process
 * of its own: V8's intrinsics need --allow-natives-syntax, and the maps' state is the process's.
 */
describe('hidden classes after start-up (real server, own process)', () => {
  it("serves with room on V8's root object map, one hidden class for requests' headers and for nextTick's records", async () => {
    const lines = await runChild();
    const probe = JSON.parse(lines.find((line) => line.startsWith('{"headersShareMap"'))!) as {
      headersShareMap: boolean;
      rootMapRoom: number;
      tickObjectsShareMap: boolean;
      requestFields: { setInEitherOrder: boolean; noneSet: boolean };
    };
    expect(probe).toEqual({
      headersShareMap: true,
      rootMapRoom: 500,
      tickObjectsShareMap: true,
      // The request fields' holder (src/http/requestFields.ts): one class with it, whatever was set in what order.
      requestFields: { setInEitherOrder: true, noneSet: true },
    });
    // nextTick's record has five properties, each defined through an inline cache of its own: after idle
    // collections each must still know one hidden class, not have gone megamorphic.
    const recordCaches = lines.filter((line) => line.includes('DefineKeyedOwnPropertyInLiteral'));
    expect(recordCaches).toHaveLength(5);
    expect(recordCaches.filter((line) => !line.includes('MONOMORPHIC'))).toEqual([]);
    // A property load that met ten hidden classes keeps them (V8's default bound of four made it megamorphic).
    // The child prints that load's feedback first, and it has no other slot.
    const loadCache = lines.find((line) => line.includes('LoadProperty'));
    expect(loadCache).toMatch(/POLYMORPHIC/);
  }, 120_000);
});
