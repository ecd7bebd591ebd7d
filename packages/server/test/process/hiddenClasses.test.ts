import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const child = fileURLToPath(new URL('./hiddenClassesChild.ts', import.meta.url));
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-hidden-classes-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/**
 * Start-up filled V8's root object map with about a thousand dead transitions (fast-json-stringify's and
 * ajv's generated names), so until the next mark-compact every request's `headers` object got a hidden class
 * of its own (src/startupGarbage.ts); and a collection in that state freed the hidden class of
 * `process.nextTick`'s records, so that each record built before the start-up collection got one of its own and
 * nextTick's inline caches went megamorphic for the life of the process (src/tickObjectShape.ts). A process of its own: V8's intrinsics need --allow-natives-syntax, and
 * the map's state is the process's.
 */
describe('hidden classes after start-up (real server, own process)', () => {
  it("serves with room on V8's root object map: requests' headers objects share one hidden class", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--allow-natives-syntax', '--conditions=development', '--import', 'tsx', child, dataDir],
      { timeout: 100_000 },
    );
    const probe = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      headersShareMap: boolean;
      rootMapRoom: number;
      tickObjectsShareMap: boolean;
    };
    expect(probe).toEqual({ headersShareMap: true, rootMapRoom: 500, tickObjectsShareMap: true });
  }, 120_000);
});
