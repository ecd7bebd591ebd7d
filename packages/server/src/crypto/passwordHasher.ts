import { randomBytes, scrypt, type ScryptOptions, timingSafeEqual } from 'node:crypto';
import { WorkQueue } from '../workers/workQueue.js';

/**
 * Memory-hard password hashing with scrypt. `crypto.scrypt` runs on libuv's thread pool, so a
 * burst of logins never blocks the event loop. Stored form: `scrypt$N$r$p$salt$hash` (base64),
 * so parameters can be raised later without breaking old hashes: a hash made with weaker
 * parameters still verifies, and `needsRehash` tells the caller to store a fresh one.
 */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
  keyLength: number;
}

/** OWASP's scrypt recommendation (N=2^17, r=8, p=1): 128 MiB and a few hundred ms per hash. */
export const SCRYPT_PARAMS: ScryptParams = { N: 2 ** 17, r: 8, p: 1, keyLength: 32 };

function scryptAsync(
  password: string,
  salt: Buffer,
  keyLength: number,
  options: ScryptOptions,
): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

const maxmem = (N: number, r: number) => 256 * N * r;

interface StoredHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

function parseStored(stored: string): StoredHash | undefined {
  const [scheme, n, r, p, saltB64, keyB64] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !saltB64 || !keyB64) return undefined;
  const [N, R, P] = [Number(n), Number(r), Number(p)];
  if (![N, R, P].every((v) => Number.isSafeInteger(v) && v > 0) || N > 2 ** 20 || R > 32 || P > 16) {
    return undefined;
  }
  return { N, r: R, p: P, salt: Buffer.from(saltB64, 'base64'), key: Buffer.from(keyB64, 'base64') };
}

export async function hashPassword(password: string, params: ScryptParams = SCRYPT_PARAMS): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, params.keyLength, {
    N: params.N,
    r: params.r,
    p: params.p,
    maxmem: maxmem(params.N, params.r),
  });
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseStored(stored);
  if (!parsed) return false;
  const actual = await scryptAsync(password, parsed.salt, parsed.key.length, {
    N: parsed.N,
    r: parsed.r,
    p: parsed.p,
    maxmem: maxmem(parsed.N, parsed.r),
  });
  return actual.length === parsed.key.length && timingSafeEqual(actual, parsed.key);
}

/** True when `stored` was made with weaker parameters than `params` (or is not a scrypt hash at all). */
export function needsRehash(stored: string, params: ScryptParams = SCRYPT_PARAMS): boolean {
  const parsed = parseStored(stored);
  return !parsed || parsed.N < params.N || parsed.r < params.r || parsed.p < params.p;
}

/**
 * Password hashing as the services use it: every scrypt goes through one bounded queue (at most
 * `concurrency` at once, `maxQueued` waiting, SCRYPT_QUEUE_MAX), so a flood of sign-ins or sign-ups
 * answers 503 `overloaded` instead of piling up work and memory.
 */
export class PasswordHasher {
  readonly #queue: WorkQueue;
  #dummy: Promise<string> | undefined;

  constructor(
    concurrency: number,
    maxQueued: number,
    readonly params: ScryptParams = SCRYPT_PARAMS,
  ) {
    this.#queue = new WorkQueue(concurrency, maxQueued);
  }

  hash(password: string): Promise<string> {
    return this.#queue.run(() => hashPassword(password, this.params));
  }

  verify(password: string, stored: string): Promise<boolean> {
    return this.#queue.run(() => verifyPassword(password, stored));
  }

  needsRehash(stored: string): boolean {
    return needsRehash(stored, this.params);
  }

  /**
   * A valid hash of a random password with the current parameters: verifying against it when the
   * e-mail is unknown makes a failed login take the same time whether or not the account exists.
   */
  dummyHash(): Promise<string> {
    // Made once, the first time an unknown e-mail signs in (not at start: it costs a full hash).
    return (this.#dummy ??= hashPassword(randomBytes(16).toString('hex'), this.params));
  }

  /** Hashes waiting for a slot (metrics, tests). */
  get queued(): number {
    return this.#queue.queued;
  }
}
