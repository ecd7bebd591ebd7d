/**
 * Where a change came from, as the route saw it: the client address (as TRUST_PROXY resolves it) and the
 * user agent. Optional everywhere: a change made by the CLI or a background job has none.
 */
export interface RequestContext {
  ip?: string | undefined;
  userAgent?: string | undefined;
}
