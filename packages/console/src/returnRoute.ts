/**
 * The console page a step-up left for the provider's sign-in (a session without a password confirms itself
 * there): kept in this tab's sessionStorage while the browser is away, so the redeemed login ticket lands the
 * user back on the page they were changing instead of the app list. Only a console route (`#/…`) is kept,
 * only for 10 minutes (an abandoned step-up does not steer a later sign-in), and only for the same account (a
 * provider sign-in may come back as another one, who starts at the app list).
 */
const KEY = 'dauth.console.returnRoute';
const MAX_AGE_MS = 10 * 60_000;
const CONSOLE_ROUTE = /^#\/[A-Za-z0-9/_.~%=&?-]*$/;

export function rememberReturnRoute(hash: string, uuid: string): void {
  if (CONSOLE_ROUTE.test(hash)) sessionStorage.setItem(KEY, JSON.stringify({ hash, uuid, at: Date.now() }));
}

/** The route remembered for account `uuid` (once: it is forgotten as it is read), or undefined. */
export function takeReturnRoute(uuid: string): string | undefined {
  const raw = sessionStorage.getItem(KEY);
  sessionStorage.removeItem(KEY);
  if (raw === null) return undefined;
  try {
    const { hash, uuid: savedFor, at } = JSON.parse(raw) as { hash?: unknown; uuid?: unknown; at?: unknown };
    if (typeof hash !== 'string' || !CONSOLE_ROUTE.test(hash) || savedFor !== uuid) return undefined;
    return typeof at === 'number' && Date.now() - at < MAX_AGE_MS ? hash : undefined;
  } catch {
    return undefined;
  }
}
