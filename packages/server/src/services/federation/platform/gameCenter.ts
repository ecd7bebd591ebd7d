import { constants, createHash, verify as verifySignature, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ProviderConfig, UpstreamIdentity } from '../upstreamProvider.js';
import { UpstreamUnavailable } from '../upstreamProvider.js';
import {
  type PlatformCredential,
  type PlatformDeps,
  type PlatformProvider,
  PlatformRejected,
  boundedBytes,
  credentialString,
} from './platformProvider.js';

/** Where Apple serves the Game Center signing certificates (`https://static.gc.apple.com/…`). */
export const GAME_CENTER_KEY_HOST = 'apple.com';
/** The trust anchor shipped with dauth (docs/federation.md "Game Center"). */
export const GAME_CENTER_TRUST_FILE = fileURLToPath(
  new URL('../../../../trust/game-center-roots.pem', import.meta.url),
);
/** A signature older or further ahead than this is refused. */
export const SIGNATURE_MAX_AGE_MS = 5 * 60_000;
/** Markers outlive the window in which a signature is accepted at all. */
const SIGNATURE_MARKER_TTL_MS = 2 * SIGNATURE_MAX_AGE_MS + 60_000;
const CERT_CACHE_MS = 3_600_000;
const CERT_CACHE_ENTRIES = 16;
const CERT_MAX_BYTES = 16 * 1024;
const TIMEOUT_MS = 10_000;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/**
 * Where the leaf's issuing certificate may be fetched from (its Authority Information Access "CA Issuers"
 * URL): DigiCert's repository, over http as AIA URLs are. What comes back is believed only when a
 * certificate of the trust anchor issued it, so the fetch adds no trust, only the missing link.
 */
export const CA_ISSUER_HOSTS: readonly string[] = ['cacerts.digicert.com'];

/** Every certificate of a PEM bundle (the trust anchor and any intermediates beside it). */
export function parsePemBundle(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => new X509Certificate(block));
}

/** The trust anchor of an entry: its `trust_anchor` (PEM, or `@file`), else the shipped file. */
export function loadTrustAnchor(value: string | undefined): X509Certificate[] {
  const pem =
    value === undefined
      ? readFileSync(GAME_CENTER_TRUST_FILE, 'utf8')
      : value.startsWith('@')
        ? readFileSync(value.slice(1), 'utf8')
        : value.replace(/\\n/g, '\n');
  const certs = parsePemBundle(pem);
  if (certs.length === 0) throw new Error('the trust anchor holds no PEM certificate');
  return certs;
}

/**
 * Whether a `public_key_url` may be fetched: https on the allowed host or one of its subdomains
 * (`apple.com`: `static.gc.apple.com`), never an IP literal, credentials or another port's http. A
 * loopback `public_key_host` (only for local tries and tests; the configuration allows nothing else but
 * apple.com) also admits http to exactly that host.
 */
export function publicKeyUrlAllowed(value: string, allowedHost: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  if (url.username !== '' || url.password !== '') return false;
  const host = url.hostname.toLowerCase();
  if (LOOPBACK.has(allowedHost))
    return host === allowedHost && (url.protocol === 'http:' || url.protocol === 'https:');
  return url.protocol === 'https:' && (host === allowedHost || host.endsWith(`.${allowedHost}`));
}

/**
 * The `game_center` kind: Apple's identity-verification signature
 * (`GKLocalPlayer.fetchItems(forIdentityVerificationSignature:)`): the game sends `{public_key_url,
 * signature, salt, timestamp, team_player_id, bundle_id}`, and the player is believed only when
 *   - `bundle_id` is the entry's;
 *   - `public_key_url` is https on an `apple.com` host (`publicKeyUrlAllowed`), fetched without redirects;
 *   - the certificate there (DER) is valid now and issued by a certificate of the trust anchor (its
 *     signature checked with that certificate's key, which is a CA valid now), or by the intermediate
 *     its AIA names (fetched from DigiCert's repository only) which the anchor issued;
 *   - the RSA-SHA256 signature verifies over team_player_id ‖ bundle_id ‖ timestamp (uint64 big-endian,
 *     milliseconds) ‖ salt (base64-decoded) with the certificate's key;
 *   - the timestamp is within 5 minutes of now;
 *   - the signature was never accepted before (its hash is claimed once).
 * The subject is the `team_player_id` (stable per developer team); the authentication time is the
 * signature's timestamp.
 */
export class GameCenterProvider implements PlatformProvider {
  readonly id: string;
  readonly kind = 'game_center' as const;
  readonly name: string;
  readonly identityKey: string;
  readonly #bundleIds: string[];
  readonly #anchors: X509Certificate[];
  readonly #allowedHost: string;
  readonly #certs = new Map<string, { cert: X509Certificate; at: number }>();

  constructor(
    cfg: ProviderConfig,
    private readonly deps: PlatformDeps,
  ) {
    this.id = cfg.id;
    this.name = cfg.name;
    this.identityKey = cfg.id;
    if (!cfg.bundle_id) throw new Error(`identity provider ${cfg.id}: bundle_id is required`);
    this.#bundleIds = [cfg.bundle_id, ...(cfg.bundle_ids ?? [])];
    this.#anchors = loadTrustAnchor(cfg.trust_anchor);
    this.#allowedHost = (cfg.public_key_host ?? GAME_CENTER_KEY_HOST).toLowerCase();
  }

  async verify(credential: PlatformCredential): Promise<UpstreamIdentity> {
    const keyUrl = credentialString(credential, 'public_key_url', 2048);
    const teamPlayerId = credentialString(credential, 'team_player_id', 255);
    const bundleId = credentialString(credential, 'bundle_id', 255);
    const signature = base64Of(credentialString(credential, 'signature', 4096), 'signature');
    const salt = base64Of(credentialString(credential, 'salt', 1024), 'salt');
    const timestamp = timestampOf(credential.timestamp);
    if (!this.#bundleIds.includes(bundleId))
      throw new PlatformRejected('wrong_bundle_id', 'The signature was made for another app (bundle_id)');
    if (!publicKeyUrlAllowed(keyUrl, this.#allowedHost))
      throw new PlatformRejected(
        'public_key_url_not_apple',
        'public_key_url must be https on an apple.com host',
      );
    const now = this.deps.now();
    if (Math.abs(now - timestamp) > SIGNATURE_MAX_AGE_MS)
      throw new PlatformRejected(
        'stale_timestamp',
        'The signature is older than 5 minutes (or from the future)',
      );

    const cert = await this.#certificate(keyUrl, 'signing');
    await this.#checkChain(cert, now);
    const stamp = Buffer.alloc(8);
    stamp.writeBigUInt64BE(BigInt(timestamp));
    const signed = Buffer.concat([
      Buffer.from(teamPlayerId, 'utf8'),
      Buffer.from(bundleId, 'utf8'),
      stamp,
      salt,
    ]);
    let valid = false;
    try {
      valid = verifySignature(
        'sha256',
        signed,
        { key: cert.publicKey, padding: constants.RSA_PKCS1_PADDING },
        signature,
      );
    } catch {
      valid = false;
    }
    if (!valid) throw new PlatformRejected('bad_signature', 'The Game Center signature does not verify');
    const marker = `game_center:${this.id}:${createHash('sha256').update(signature).digest('hex')}`;
    if (!(await this.deps.claimOnce(marker, SIGNATURE_MARKER_TTL_MS)))
      throw new PlatformRejected('replayed', 'This signature was already used');
    return {
      subject: teamPlayerId,
      email: null,
      emailVerified: false,
      displayName: null,
      authTime: Math.floor(Math.min(timestamp, now) / 1000),
    };
  }

  /**
   * The leaf must be valid now and be issued by a certificate of the anchor (trusted as given: a root, and
   * any intermediate the operator put beside it), checked by that certificate's signature; or, when the
   * anchor lacks its issuer, by the issuer its AIA names (fetched from an allowed host) which an anchor
   * certificate issued in turn.
   */
  async #checkChain(leaf: X509Certificate, now: number): Promise<void> {
    const validAt = (c: X509Certificate) =>
      new Date(c.validFrom).getTime() <= now && now <= new Date(c.validTo).getTime();
    const issuedBy = (child: X509Certificate, issuer: X509Certificate) =>
      issuer.ca && validAt(issuer) && child.checkIssued(issuer) && child.verify(issuer.publicKey);
    if (!validAt(leaf))
      throw new PlatformRejected('certificate_expired', 'The signing certificate is not valid now');
    if (leaf.publicKey.asymmetricKeyType !== 'rsa')
      throw new PlatformRejected('certificate_not_rsa', 'The signing certificate does not hold an RSA key');
    if (this.#anchors.some((a) => issuedBy(leaf, a))) return;
    for (const url of caIssuerUrls(leaf)) {
      if (!this.#caIssuerAllowed(url)) continue;
      const intermediate = await this.#certificate(url, 'issuer');
      if (issuedBy(leaf, intermediate) && this.#anchors.some((a) => issuedBy(intermediate, a))) return;
    }
    throw new PlatformRejected(
      'untrusted_certificate',
      'The signing certificate does not chain to the trust anchor',
    );
  }

  #caIssuerAllowed(value: string): boolean {
    if (!URL.canParse(value)) return false;
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    if (url.username !== '' || url.password !== '') return false;
    if (LOOPBACK.has(this.#allowedHost)) return url.hostname === this.#allowedHost;
    return CA_ISSUER_HOSTS.includes(url.hostname.toLowerCase());
  }

  /** A certificate by URL (DER, or PEM as some CA repositories serve), cached an hour. */
  async #certificate(url: string, what: 'signing' | 'issuer'): Promise<X509Certificate> {
    const now = this.deps.now();
    const cached = this.#certs.get(url);
    if (cached && now - cached.at < CERT_CACHE_MS) return cached.cert;
    let bytes: Uint8Array;
    try {
      const response = await this.deps.fetch(url, {
        redirect: 'error',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      if (response.status === 404 || response.status === 403)
        throw new PlatformRejected(`no_${what}_certificate`, `No ${what} certificate at ${url}`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      bytes = await boundedBytes(response, CERT_MAX_BYTES);
    } catch (err) {
      if (err instanceof PlatformRejected) throw err;
      throw new UpstreamUnavailable(`${this.id}: the Game Center ${what} certificate cannot be fetched`, {
        cause: err,
      });
    }
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(Buffer.from(bytes));
    } catch {
      throw new PlatformRejected(`bad_${what}_certificate`, `${url} does not hold a certificate`);
    }
    if (this.#certs.size >= CERT_CACHE_ENTRIES) this.#certs.clear();
    this.#certs.set(url, { cert, at: now });
    return cert;
  }
}

function base64Of(value: string, field: string): Buffer {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value))
    throw new PlatformRejected('malformed_credential', `credential.${field} must be base64`);
  return Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64');
}

/** Milliseconds since the epoch, as Game Center gives them (a JSON number or a decimal string). */
function timestampOf(value: unknown): number {
  const n = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
    throw new PlatformRejected(
      'malformed_credential',
      'credential.timestamp must be milliseconds since the epoch',
    );
  return n;
}

/** The leaf's AIA "CA Issuers" URLs (Node renders them as `CA Issuers - URI:<url>` lines). */
function caIssuerUrls(cert: X509Certificate): string[] {
  return (cert.infoAccess ?? '')
    .split('\n')
    .map((line) => /^CA Issuers - URI:(\S+)$/.exec(line.trim())?.[1])
    .filter((url): url is string => url !== undefined)
    .slice(0, 2);
}
