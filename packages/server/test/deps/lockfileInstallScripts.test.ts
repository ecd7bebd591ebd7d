import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * npm records `hasInstallScript: true` in the lockfile for a package with an install, preinstall or
 * postinstall script (or a `binding.gyp`, which npm builds as an implicit install script: better-sqlite3 13), and a fresh `npm install` adds the flag where it is missing, rewriting the committed
 * `package-lock.json` on a newcomer's first install (issue 41). Every installed package with such a script
 * carries the flag here, so the lock a fresh clone installs is the lock it keeps.
 */
const root = new URL('../../../../', import.meta.url);
const lockfile = JSON.parse(fs.readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { hasInstallScript?: boolean; link?: boolean }>;
};

describe('package-lock.json is what a fresh npm install writes', () => {
  it('flags every installed package that has an install script', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const [location, entry] of Object.entries(lockfile.packages)) {
      if (!location.startsWith('node_modules/') || entry.link) continue;
      const manifestUrl = new URL(`${location}/package.json`, root);
      if (!fs.existsSync(manifestUrl)) continue; // an optional package for another platform
      const { scripts = {} } = JSON.parse(fs.readFileSync(manifestUrl, 'utf8')) as {
        scripts?: Record<string, string>;
      };
      checked += 1;
      // The registry flags a package that ships a binding.gyp whatever its `gypfile` field says
      // (better-sqlite3 13 says false), and a fresh install copies the registry's flag into the lock.
      const builds = fs.existsSync(new URL(`${location}/binding.gyp`, root));
      const installs = builds || ['preinstall', 'install', 'postinstall'].some((name) => name in scripts);
      if (installs && entry.hasInstallScript !== true) missing.push(location);
    }
    expect(checked).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });
});
