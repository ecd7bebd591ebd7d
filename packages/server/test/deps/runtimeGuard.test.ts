import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { minimumNode, unsupportedNodeReason } from '../../src/runtimeGuard.js';

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const engines = (
  JSON.parse(fs.readFileSync(path.join(serverDir, 'package.json'), 'utf8')) as {
    engines: { node: string };
  }
).engines.node;

/** An installed Node older than the floor (Debian's own `node` is 20 on this machine kind), if any. */
function oldNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!fs.existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['-p', 'process.versions.node']).toString().trim();
    if (unsupportedNodeReason(version)) return candidate;
  }
  return undefined;
}

describe('the runtime guard (issue 41: `npm start` on Node 20 ended in a bare segmentation fault)', () => {
  it('draws the line where `engines` does', () => {
    expect(engines).toBe(`>=${minimumNode.major}.${minimumNode.minor}`);
    expect(unsupportedNodeReason('22.15.0')).toBeUndefined();
    expect(unsupportedNodeReason('24.21.0')).toBeUndefined();
    expect(unsupportedNodeReason('26.1.0')).toBeUndefined();
    expect(unsupportedNodeReason('22.14.0')).toMatch(
      /needs Node\.js 22\.15 or newer .* this is Node\.js 22\.14\.0/,
    );
    expect(unsupportedNodeReason('20.20.2')).toContain('Install Node 24');
  });

  const node = oldNode();
  it.skipIf(!node)(
    `the built server and CLI, started by an old Node (${node ?? 'none installed here'}), say which Node they need and exit 1`,
    () => {
      for (const entry of ['dist/start.cjs', 'dist/cli.js']) {
        const run = spawnSync(node!, [path.join(serverDir, entry), '--help'], {
          encoding: 'utf8',
          timeout: 30_000,
        });
        expect(run.signal, entry).toBeNull(); // not SIGSEGV
        expect(run.status, entry).toBe(1);
        expect(run.stderr, entry).toContain('dauth needs Node.js 22.15 or newer');
      }
    },
  );
});
