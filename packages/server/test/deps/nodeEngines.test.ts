import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { enginesViolations, type LockfileEntry } from './nodeEngines.js';

/**
 * The project runs on Node 20 (root package.json `engines.node`, README, CI). A dependency whose own
 * `engines.node` leaves out part of that range — cookie@2.0.2 and content-disposition@3.0.0 ask for
 * Node >= 22 — may break there, so every package the lockfile installs must admit the whole range.
 */
const root = new URL('../../../../', import.meta.url);
const readJson = (name: string) => JSON.parse(fs.readFileSync(new URL(name, root), 'utf8')) as unknown;
const project = readJson('package.json') as { engines: { node: string } };
const lockfile = readJson('package-lock.json') as {
  lockfileVersion: number;
  packages: Record<string, LockfileEntry>;
};

describe('Node 20 guard: every installed package admits the project’s Node range', () => {
  it('the project range is Node 20 from 20.19, and the running Node is in it', () => {
    expect(project.engines.node).toBe('>=20.19 <21');
    expect(process.versions.node.split('.')[0]).toBe('20');
  });

  it('package-lock.json installs nothing that refuses a Node version of that range', () => {
    expect(lockfile.lockfileVersion).toBeGreaterThanOrEqual(2);
    expect(Object.keys(lockfile.packages).length).toBeGreaterThan(100);
    expect(enginesViolations(lockfile.packages, project.engines.node)).toEqual([]);
  });

  it('the checker refuses a package that needs Node 22 (cookie@2.0.2) or a later 20.x, and accepts the rest', () => {
    const synthetic: Record<string, LockfileEntry> = {
      '': { version: '0.0.0', engines: { node: '>=20.19 <21' } },
      'node_modules/cookie': { version: '2.0.2', engines: { node: '>=22' } },
      'node_modules/express/node_modules/content-disposition': {
        version: '3.0.0',
        engines: { node: '>=22' },
      },
      'node_modules/too-new-20': { version: '1.0.0', engines: { node: '>=20.20' } },
      'node_modules/either': { version: '1.0.0', engines: { node: '^18 || >=22' } },
      'node_modules/garbage': { version: '1.0.0', engines: { node: 'latest please' } },
      'node_modules/old-cookie': { version: '1.1.1', engines: { node: '>=18' } },
      'node_modules/exact-range': { version: '1.0.0', engines: { node: '^20.19.0 || >=22.12.0' } },
      'node_modules/no-engines': { version: '1.0.0' },
      'node_modules/npm-only': { version: '1.0.0', engines: { npm: '>=99' } },
      'node_modules/array-form': { version: '1.0.0', engines: ['node >= 0.4'] },
      'node_modules/@dauth/sdk': { link: true },
    };
    expect(enginesViolations(synthetic, '>=20.19 <21')).toEqual([
      { path: 'node_modules/cookie', version: '2.0.2', node: '>=22' },
      { path: 'node_modules/express/node_modules/content-disposition', version: '3.0.0', node: '>=22' },
      { path: 'node_modules/too-new-20', version: '1.0.0', node: '>=20.20' },
      { path: 'node_modules/either', version: '1.0.0', node: '^18 || >=22' },
      { path: 'node_modules/garbage', version: '1.0.0', node: 'latest please' },
    ]);
    // The real lockfile with cookie@2.0.2 slipped in fails the guard.
    const withCookie2 = {
      ...lockfile.packages,
      'node_modules/cookie': { version: '2.0.2', engines: { node: '>=22' } },
    };
    expect(enginesViolations(withCookie2, project.engines.node)).toEqual([
      { path: 'node_modules/cookie', version: '2.0.2', node: '>=22' },
    ]);
  });
});
