import fs from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import {
  ciNodeVersions,
  enginesViolations,
  isDevOnly,
  testedRange,
  toolingRange,
  type LockfileEntry,
} from './nodeEngines.js';

/**
 * The project runs on Node 24 LTS (reference) and every Node from 22.15 (decisions §8 "Runtime", with the
 * floor raised from 22.12 for better-sqlite3 13's Node-API 10: docs/runtime.md): root and workspace
 * `engines.node`, `.nvmrc`, README and the Node versions CI installs (`.ci/node-versions`) agree. A dependency
 * whose own `engines.node` leaves out part of that range may break there, so every package the lockfile
 * installs must admit it — up to the newest major CI runs, since a package that caps future majors (an addon
 * rebuilt per Node ABI, `… || 26.x`) is safe exactly as far as CI proves.
 */
const root = new URL('../../../../', import.meta.url);
const readText = (name: string) => fs.readFileSync(new URL(name, root), 'utf8');
const readJson = (name: string) => JSON.parse(readText(name)) as unknown;
const project = readJson('package.json') as { engines: { node: string }; workspaces: string[] };
const lockfile = readJson('package-lock.json') as {
  lockfileVersion: number;
  packages: Record<string, LockfileEntry>;
};
const ciVersions = ciNodeVersions(readText('.ci/node-versions'));

describe('Node engines guard: every installed package admits the project’s Node range', () => {
  it('the project claims >=22.15 everywhere, with Node 24 as the reference that .nvmrc and CI use first', () => {
    expect(project.engines.node).toBe('>=22.15');
    for (const workspace of project.workspaces) {
      const manifest = readJson(`${workspace}/package.json`) as { engines?: { node?: string } };
      expect(manifest.engines?.node, workspace).toBe('>=22.15');
    }
    expect(readText('.nvmrc').trim()).toBe('24');
    expect(ciVersions.map((v) => semver.major(v))).toEqual([24, 22, 26]);
    for (const version of ciVersions)
      expect(semver.satisfies(version, project.engines.node), version).toBe(true);
    expect(readText('README.md')).toContain('Node.js 24 LTS');
  });

  it('the running Node is one the project admits', () => {
    expect(semver.satisfies(process.versions.node, project.engines.node)).toBe(true);
  });

  it('package-lock.json installs nothing that refuses a Node version CI runs or the range claims up to it', () => {
    expect(lockfile.lockfileVersion).toBeGreaterThanOrEqual(2);
    expect(Object.keys(lockfile.packages).length).toBeGreaterThan(100);
    const range = testedRange(project.engines.node, ciVersions);
    expect(range).toEqual([22, 23, 24, 25, 26].map((m) => `>=22.15 >=${m}.0.0 <${m + 1}.0.0-0`));
    const product = Object.fromEntries(Object.entries(lockfile.packages).filter(([, e]) => !isDevOnly(e)));
    const tooling = Object.fromEntries(Object.entries(lockfile.packages).filter(([, e]) => isDevOnly(e)));
    expect(Object.keys(product)).toContain('node_modules/better-sqlite3');
    expect(Object.keys(tooling)).toContain('node_modules/vitest');
    expect(enginesViolations(product, range)).toEqual([]);
    expect(toolingRange(range)).toEqual([22, 24, 26].map((m) => `>=22.15 >=${m}.0.0 <${m + 1}.0.0-0`));
    expect(enginesViolations(tooling, toolingRange(range))).toEqual([]);
  });

  it('the floor has the Node-API version better-sqlite3 is built for (10: Node 22.14) and OpenTelemetry’s SDK 3 needs (22.15)', () => {
    const gyp = fs.readFileSync(new URL('node_modules/better-sqlite3/binding.gyp', root), 'utf8');
    expect(gyp).toContain("'NAPI_VERSION=10'");
    // Node-API 10 arrived in 22.14.0 (nodejs/node#55676); 13.x's prebuild segfaults on 22.12.0 (Node-API 9).
    expect(semver.minVersion(project.engines.node)?.version).toBe('22.15.0');
    expect(semver.satisfies('22.12.0', project.engines.node)).toBe(false);
  });

  it('the checker refuses packages that leave out 22.15–22.x, 23, 25 or 26, and accepts the rest', () => {
    const synthetic: Record<string, LockfileEntry> = {
      '': { version: '0.0.0', engines: { node: '>=22.15' } },
      'node_modules/node20-only': { version: '1.0.0', engines: { node: '>=20.19 <21' } },
      'node_modules/too-new-22': { version: '1.0.0', engines: { node: '>=22.16' } },
      'node_modules/even-only': { version: '1.0.0', engines: { node: '^22.12 || ^24 || ^26' } },
      'node_modules/capped-24': { version: '1.0.0', engines: { node: '20.x || 22.x || 23.x || 24.x' } },
      'node_modules/garbage': { version: '1.0.0', engines: { node: 'latest please' } },
      'node_modules/capped-26': {
        version: '12.11.1',
        engines: { node: '20.x || 22.x || 23.x || 24.x || 25.x || 26.x' },
      },
      'node_modules/cookie': { version: '2.0.2', engines: { node: '>=22' } },
      'node_modules/exact-range': { version: '1.0.0', engines: { node: '^20.19.0 || >=22.12.0' } },
      'node_modules/no-engines': { version: '1.0.0' },
      'node_modules/npm-only': { version: '1.0.0', engines: { npm: '>=99' } },
      'node_modules/array-form': { version: '1.0.0', engines: ['node >= 0.4'] },
      'node_modules/@dauth/sdk': { link: true },
    };
    const range = testedRange('>=22.15', ['24.21.0', '22.23.3', '26.12.1']);
    expect(enginesViolations(synthetic, range)).toEqual([
      { path: 'node_modules/node20-only', version: '1.0.0', node: '>=20.19 <21' },
      { path: 'node_modules/too-new-22', version: '1.0.0', node: '>=22.16' },
      { path: 'node_modules/even-only', version: '1.0.0', node: '^22.12 || ^24 || ^26' },
      { path: 'node_modules/capped-24', version: '1.0.0', node: '20.x || 22.x || 23.x || 24.x' },
      { path: 'node_modules/garbage', version: '1.0.0', node: 'latest please' },
    ]);
    // Once CI runs Node 28, a package capped at 26.x is refused.
    expect(
      enginesViolations(synthetic, testedRange('>=22.15', ['24.21.0', '28.0.0'])).map((v) => v.path),
    ).toContain('node_modules/capped-26');
    // The real lockfile with the Node 20-only better-sqlite3 of an earlier line slipped in fails the guard.
    const product = Object.fromEntries(Object.entries(lockfile.packages).filter(([, e]) => !isDevOnly(e)));
    const withOldSqlite = {
      ...product,
      'node_modules/better-sqlite3': { version: '9.6.0', engines: { node: '14.x || 16.x || 18.x || 20.x' } },
    };
    expect(enginesViolations(withOldSqlite, range)).toEqual([
      { path: 'node_modules/better-sqlite3', version: '9.6.0', node: '14.x || 16.x || 18.x || 20.x' },
    ]);
  });

  it('reads .ci/node-versions: one version a line, comments and blanks skipped, anything else refused', () => {
    expect(ciNodeVersions('# reference first\n24.21.0\n\n22.23.3\n')).toEqual(['24.21.0', '22.23.3']);
    expect(() => ciNodeVersions('24\n')).toThrow(/24/);
    expect(() => ciNodeVersions('# nothing\n')).toThrow(/no versions/);
  });
});
