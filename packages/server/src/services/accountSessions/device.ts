import { networkOf } from '../network/ipAddresses.js';
import type { RequestContext } from '../security/requestContext.js';

/** Longest user agent kept with a session (the column's width); the rest is cut. */
export const MAX_USER_AGENT = 200;

/** Where a session was opened, as stored with it: never the full address, only its /24 or /48. */
export interface DeviceOrigin {
  userAgent?: string | undefined;
  network?: string | undefined;
}

/** The storable origin of a request: control characters out of the user agent, the address's network. */
export function deviceOrigin(context: RequestContext | undefined): DeviceOrigin {
  const agent = context?.userAgent
    ?.replace(/[\p{Cc}\p{Cf}]/gu, ' ')
    .trim()
    .slice(0, MAX_USER_AGENT);
  return {
    userAgent: agent || undefined,
    network: context?.ip === undefined ? undefined : networkOf(context.ip),
  };
}

const BROWSERS: [RegExp, string][] = [
  [/\bEdg(e|A|iOS)?\//, 'Edge'],
  [/\bOPR\//, 'Opera'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\bChrome\/|\bCriOS\/|HeadlessChrome\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*Safari\//, 'Safari'],
  [/^curl\//, 'curl'],
];
const SYSTEMS: [RegExp, string][] = [
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Android/, 'Android'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

/**
 * A short name for a user agent ("Chrome on Linux"), for a person to recognise their devices; the first
 * 60 characters of it when neither the browser nor the system is known. Never used for a decision.
 */
export function shortDevice(userAgent: string | undefined): string | undefined {
  if (!userAgent) return undefined;
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? userAgent.slice(0, 60);
}
