import semver from 'semver';

/** One `packages` entry of an npm v2/v3 lockfile, as far as the engines guard reads it. */
export interface LockfileEntry {
  version?: string;
  engines?: unknown;
  link?: boolean;
  /** Installed only for development (build, lint, tests), never by `npm install --omit=dev`. */
  dev?: boolean;
  devOptional?: boolean;
}

/** Whether a lockfile entry is development tooling only (npm's `dev` / `devOptional` marks). */
export function isDevOnly(entry: LockfileEntry): boolean {
  return entry.dev === true || entry.devOptional === true;
}

export interface EnginesViolation {
  /** The entry's path in the lockfile, e.g. `node_modules/cookie`. */
  path: string;
  version: string | undefined;
  /** The package's `engines.node` range as written. */
  node: string;
}

/**
 * Every lockfile entry whose `engines.node` does not admit the whole of `projectRange` (the Node versions the
 * project claims, as one range or as slices that together make it — see `testedRange`): a package that
 * refuses even one of them would fail there. An entry without `engines.node` admits every version (npm's
 * reading); a range semver cannot parse is a violation, since nothing proves it admits the project's versions.
 */
export function enginesViolations(
  packages: Record<string, LockfileEntry>,
  projectRange: string | readonly string[],
): EnginesViolation[] {
  const slices = typeof projectRange === 'string' ? [projectRange] : projectRange;
  for (const slice of slices)
    if (semver.validRange(slice) === null) throw new Error(`invalid project range ${slice}`);
  const violations: EnginesViolation[] = [];
  for (const [path, entry] of Object.entries(packages)) {
    if (path === '') continue; // the project itself
    const engines = entry.engines;
    // npm ignores the old array form (`["node >= 0.4"]`) as it ignores a missing field.
    if (typeof engines !== 'object' || engines === null || Array.isArray(engines)) continue;
    const node = (engines as Record<string, unknown>).node;
    if (node === undefined) continue;
    const range = typeof node === 'string' ? node : JSON.stringify(node);
    const admits =
      typeof node === 'string' &&
      semver.validRange(node) !== null &&
      slices.every((slice) => semver.subset(slice, node));
    if (!admits) violations.push({ path, version: entry.version, node: range });
  }
  return violations;
}

/** The versions `.ci/node-versions` lists (exact x.y.z, one a line, `#` comments), reference first. */
export function ciNodeVersions(text: string): string[] {
  const versions = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  for (const version of versions) {
    if (semver.valid(version) !== version)
      throw new Error(`.ci/node-versions: not an exact version: ${version}`);
  }
  if (versions.length === 0) throw new Error('.ci/node-versions lists no versions');
  return versions;
}

/**
 * The part of `projectRange` CI proves — up to the newest major it runs — as one slice per major:
 * `semver.subset` compares a range with each `||` branch of a package's range separately, so
 * `>=22.12 <27` is no subset of `22.x || … || 26.x` while each major's slice is. A dependency capped at
 * the newest tested major (an addon built per Node ABI) is fine today; the day CI adds a newer major the
 * guard checks that one too.
 */
export function testedRange(projectRange: string, ciVersions: readonly string[]): string[] {
  const newestMajor = Math.max(...ciVersions.map((v) => semver.major(v)));
  const lowest = semver.minVersion(projectRange);
  if (lowest === null) throw new Error(`invalid project range ${projectRange}`);
  const slices: string[] = [];
  for (let major = lowest.major; major <= newestMajor; major++) {
    slices.push(`${projectRange} >=${major}.0.0 <${major + 1}.0.0-0`);
  }
  return slices;
}

/**
 * What development tooling (build, lint, tests) must admit: the project's slices of the LTS (even) majors,
 * never the odd, short-lived ones, which vitest leaves out (`^20 || ^22 || >=24`). The product itself
 * (`npm install --omit=dev`) admits every slice.
 */
export function toolingRange(slices: readonly string[]): string[] {
  return slices.filter((slice) => {
    const lowest = semver.minVersion(slice);
    return lowest !== null && lowest.major % 2 === 0;
  });
}
