import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { embeddedIpv4 } from '../network/ipAddresses.js';

/**
 * Where the service may send a server-side request on an app's behalf (the backend-integration
 * callback `POST <redirect_uri>`), decisions §7 "Callback targets (SSRF)":
 *
 * - `forbidden`: link-local and cloud metadata (169.254.0.0/16, fe80::/10, fd00:ec2::254),
 *   shared address space 100.64.0.0/10, multicast and reserved ranges: never a target.
 * - `private`: loopback, "this host" (0.0.0.0/8, ::), RFC 1918, unique-local fc00::/7, and the
 *   IPv6 forms that embed an IPv4 address a gateway may translate (NAT64, 6to4, Teredo): refused
 *   unless private targets are allowed (`CALLBACK_ALLOW_PRIVATE`).
 * - `public`: everything else.
 *
 * An IPv6 address that embeds an IPv4 address (IPv4-mapped `::ffff:0:0/96`, -translated
 * `::ffff:0:0:0/96`, -compatible `::/96`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4, Teredo:
 * `embeddedIpv4`) is judged by that IPv4 address too, and the stricter class wins (decisions §8):
 * `64:ff9b::a9fe:a9fe` is the metadata address 169.254.169.254 behind a NAT64 gateway, so forbidden
 * even where private targets are allowed. Other IPv4 spellings (`0x7f.1`, `2130706433`, `127.1`) are
 * normalised by the WHATWG URL parser before they get here.
 */
export type AddressClass = 'public' | 'private' | 'forbidden';

const forbidden = new BlockList();
for (const [net, prefix] of [
  ['169.254.0.0', 16],
  ['100.64.0.0', 10],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  forbidden.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['fd00:ec2::254', 128],
] as const) {
  forbidden.addSubnet(net, prefix, 'ipv6');
}

const privateOrLocal = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['127.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['192.0.0.0', 24],
  ['198.18.0.0', 15],
] as const) {
  privateOrLocal.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible form
  ['fc00::', 7],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
  ['2001::', 32],
] as const) {
  privateOrLocal.addSubnet(net, prefix, 'ipv6');
}

/**
 * Classes of the addresses seen lately (a pure function of the text, so remembering it changes no
 * answer): every callback attempt vets its target, and the `BlockList` checks cost more than the
 * rest of the vetting. Bounded; cleared when full.
 */
const classified = new Map<string, AddressClass>();
const CLASSIFIED_LIMIT = 1024;

/** The class of one IP address (v4 or v6, without brackets). Not an IP at all counts as forbidden. */
export function classifyAddress(address: string): AddressClass {
  let known = classified.get(address);
  if (known === undefined) {
    known = classifyUncached(address);
    if (classified.size >= CLASSIFIED_LIMIT) classified.clear();
    classified.set(address, known);
  }
  return known;
}

const STRICTNESS: Record<AddressClass, number> = { public: 0, private: 1, forbidden: 2 };

function classifyUncached(address: string): AddressClass {
  const family = isIP(address);
  if (family === 0) return 'forbidden';
  let verdict = classifyRange(address, family === 4 ? 'ipv4' : 'ipv6');
  if (family === 6) {
    for (const ipv4 of embeddedIpv4(address)) {
      const inner = classifyRange(ipv4, 'ipv4');
      if (STRICTNESS[inner] > STRICTNESS[verdict]) verdict = inner;
    }
  }
  return verdict;
}

function classifyRange(address: string, type: 'ipv4' | 'ipv6'): AddressClass {
  if (forbidden.check(address, type)) return 'forbidden';
  if (privateOrLocal.check(address, type)) return 'private';
  return 'public';
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address the system resolver gives (tests inject their own). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: HostResolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

export interface CallbackTargetOptions {
  /** Loopback and private ranges may be targets (embedded default; `CALLBACK_ALLOW_PRIVATE`). */
  allowPrivate: boolean;
  /** Production: `http://` only for loopback hosts; every other redirect URI must be `https://`. */
  requireHttps: boolean;
  resolve?: HostResolver;
}

export type TargetVerdict =
  { ok: true; addresses: ResolvedAddress[] } | { ok: false; reason: string; unresolved?: boolean };

/** The URL's host without IPv6 brackets (`new URL` already normalised IPv4 spellings). */
const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

const isLoopbackName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/**
 * The callback-target policy, applied at registration (`registrationProblem`) and again at send
 * time on the addresses the host resolves to then (`vet`); the sender connects to exactly those
 * vetted addresses (`pinnedLookup`), so a DNS answer that changes in between cannot redirect it.
 */
export class CallbackTargetPolicy {
  readonly allowPrivate: boolean;
  readonly requireHttps: boolean;
  readonly #resolve: HostResolver;

  constructor(options: CallbackTargetOptions) {
    this.allowPrivate = options.allowPrivate;
    this.requireHttps = options.requireHttps;
    this.#resolve = options.resolve ?? systemResolver;
  }

  /**
   * Why a redirect URI may not be registered, or undefined. A host name that does not resolve now
   * is accepted (the app's backend may not be live yet); the send-time check still applies.
   */
  async registrationProblem(uri: string): Promise<string | undefined> {
    const url = new URL(uri);
    const host = bareHost(url);
    if (url.protocol === 'http:' && this.requireHttps && !isLoopbackName(host) && !isLoopbackLiteral(host)) {
      return 'must use https (http is accepted only for loopback hosts)';
    }
    const verdict = await this.vet(url);
    if (!verdict.ok && !verdict.unresolved) return verdict.reason;
    return undefined;
  }

  /** Resolves the URL's host and checks every address; refuses if any one is not allowed. */
  async vet(url: URL): Promise<TargetVerdict> {
    const host = bareHost(url);
    let addresses: ResolvedAddress[];
    if (isIP(host) !== 0) {
      addresses = [{ address: host, family: isIP(host) }];
    } else {
      try {
        addresses = await withTimeout(this.#resolve(host), RESOLVE_TIMEOUT_MS);
      } catch {
        return { ok: false, reason: 'host does not resolve', unresolved: true };
      }
      if (addresses.length === 0) return { ok: false, reason: 'host does not resolve', unresolved: true };
    }
    for (const { address } of addresses) {
      const kind = classifyAddress(address);
      if (kind === 'forbidden') {
        return { ok: false, reason: 'must not point at a link-local, metadata or reserved address' };
      }
      if (kind === 'private' && !this.allowPrivate) {
        return { ok: false, reason: 'must not point at a loopback or private address' };
      }
    }
    return { ok: true, addresses };
  }
}

/** A resolver that hangs must not hold a registration or a callback attempt for long. */
const RESOLVE_TIMEOUT_MS = 5_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('DNS lookup timed out')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function isLoopbackLiteral(host: string): boolean {
  const family = isIP(host);
  if (family === 4) return host.startsWith('127.');
  return family === 6 && (host === '::1' || /^::ffff:(127\.|7f[0-9a-f]{2}:)/i.test(host));
}

/**
 * A `lookup` for the connection (`PinnedPoster`'s pools) that answers with the vetted addresses only, so it
 * goes where the policy checked while the URL's host still names the request (Host header, TLS SNI
 * and certificate check).
 */
export function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) {
      callback(null, addresses);
      return;
    }
    const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
    const first = addresses.find((a) => wanted === undefined || a.family === wanted) ?? addresses[0]!;
    callback(null, first.address, first.family);
  };
}
