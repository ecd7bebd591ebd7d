import semver from 'semver';

/** One `packages` entry of an npm v2/v3 lockfile, as far as the engines guard reads it. */
export interface LockfileEntry {
  version?: string;
  engines?: unknown;
  link?: boolean;
}

export interface EnginesViolation {
  /** The entry's path in the lockfile, e.g. `node_modules/cookie`. */
  path: string;
  version: string | undefined;
  /** The package's `engines.node` range as written. */
  node: string;
}

/**
 * Every lockfile entry whose `engines.node` does not admit the whole of `projectRange` (the project's own
 * `engines.node`): a package that refuses even one Node version the project claims to run on would fail
 * there. An entry without `engines.node` admits every version (npm's reading); a range semver cannot parse
 * is a violation, since nothing proves it admits the project's versions.
 */
export function enginesViolations(
  packages: Record<string, LockfileEntry>,
  projectRange: string,
): EnginesViolation[] {
  if (semver.validRange(projectRange) === null) throw new Error(`invalid project range ${projectRange}`);
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
      typeof node === 'string' && semver.validRange(node) !== null && semver.subset(projectRange, node);
    if (!admits) violations.push({ path, version: entry.version, node: range });
  }
  return violations;
}
