// The few `semver` functions the engines guard uses (the package ships no types, and @types/semver is
// not in the dependency tree).
declare module 'semver' {
  interface RangeOptions {
    includePrerelease?: boolean;
  }
  const semver: {
    /** Whether every version `sub` admits is admitted by `dom`. */
    subset(sub: string, dom: string, options?: RangeOptions): boolean;
    /** The normalised range, or null when `range` is not a valid one. */
    validRange(range: string): string | null;
    satisfies(version: string, range: string): boolean;
    /** The cleaned version, or null when `version` is not one. */
    valid(version: string): string | null;
    major(version: string): number;
    /** The lowest version `range` admits, or null. */
    minVersion(range: string): { version: string; major: number } | null;
  };
  export default semver;
}
