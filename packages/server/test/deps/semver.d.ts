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
  };
  export default semver;
}
