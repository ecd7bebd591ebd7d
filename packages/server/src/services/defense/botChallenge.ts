import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { createChallenge } from 'altcha-lib/v1';
import { safeEqual } from '../../crypto/constantTime.js';
import type { BotChallengeKind } from '../../config.js';
import { AppError } from '../../errors.js';

/** A challenge as `GET /v1/challenge` hands it out (ALTCHA's v1 shape, decisions §9). */
export interface BotChallenge {
  algorithm: 'SHA-256';
  challenge: string;
  salt: string;
  signature: string;
  maxnumber: number;
}

/** Where spent solutions are marked: Redis (`SET NX PX`) when configured, else the database's nonces. */
export interface SingleUseMarks {
  /** True the first time `key` is claimed within `ttlMs`, false while an earlier claim lives. */
  claimOnce(key: string, ttlMs: number): Promise<boolean>;
}

/** How long a challenge may be solved and sent: the expiry rides in the signed salt (`?expires=`). */
export const CHALLENGE_TTL_MS = 5 * 60_000;

/**
 * The search space at rest: a browser tries about 1–2 million SHA-256 a second, so on average 25,000
 * tries take a few tens of milliseconds; a game's C# or TS solver about as long.
 */
export const BASE_MAXNUMBER = 50_000;

/** The most the difficulty rises: 64 × the base (3.2 million numbers, about a second in a browser). */
export const MAX_DIFFICULTY_FACTOR = 64;

/**
 * The search space for the challenges handed out recently (in the window of `relaxed`) to the asking
 * network (an IPv4 /24 or an IPv6 /48) and app (`client_id`): the base while within the relaxed rates
 * (`challenge_network`, `challenge_client`; a player asks for one or two), doubling with each doubling
 * of the rate past them, up to `MAX_DIFFICULTY_FACTOR`.
 */
export function maxNumberFor(
  recent: { network: number; client: number },
  relaxed: { network: number; client: number },
): number {
  const pressure = Math.max(recent.network / relaxed.network, recent.client / relaxed.client);
  if (pressure <= 1) return BASE_MAXNUMBER;
  const factor = Math.min(MAX_DIFFICULTY_FACTOR, 2 ** Math.ceil(Math.log2(pressure)));
  return BASE_MAXNUMBER * factor;
}

/** The solution field's longest accepted length: a base64 JSON of five short fields. */
const MAX_SOLUTION_LENGTH = 2_000;

export const challengeRequired = (
  message = 'Solve a challenge (GET /v1/challenge) and send it as `altcha`',
) => new AppError(400, 'challenge_required', message);

/**
 * ALTCHA proof of work (decisions §9 "Bot challenge", docs/security.md): signed challenges with their
 * expiry in the salt, solutions verified by one SHA-256 and one HMAC and accepted once (the signature is
 * marked spent in `marks`, shared by every replica). `BOT_CHALLENGE` names the requests that need one.
 */
export class BotChallengeService {
  readonly #hmacKey: string;

  constructor(
    masterKey: Buffer,
    private readonly covered: readonly BotChallengeKind[],
    private readonly marks: SingleUseMarks,
    private readonly now: () => number = Date.now,
  ) {
    // Derived from MASTER_KEY, so every replica signs and verifies alike and nothing new is stored.
    this.#hmacKey = Buffer.from(
      hkdfSync('sha256', masterKey, Buffer.alloc(0), 'dauth/altcha/v1', 32),
    ).toString('hex');
  }

  /** Whether `BOT_CHALLENGE` covers this kind of request. */
  covers(kind: BotChallengeKind): boolean {
    return this.covered.includes(kind);
  }

  /** A fresh challenge whose search space is `maxnumber` (the route picks it from the recent rate). */
  async issue(maxnumber: number): Promise<BotChallenge> {
    const challenge = await createChallenge({
      algorithm: 'SHA-256',
      hmacKey: this.#hmacKey,
      maxnumber,
      expires: new Date(this.now() + CHALLENGE_TTL_MS),
    });
    return {
      algorithm: 'SHA-256',
      challenge: challenge.challenge,
      salt: challenge.salt,
      signature: challenge.signature,
      maxnumber,
    };
  }

  /**
   * Whether `solution` (the base64 JSON `{algorithm, challenge, number, salt, signature}`) solves a
   * challenge of ours that has not expired, and was not sent before: the first valid use spends it.
   */
  async verify(solution: string | undefined): Promise<boolean> {
    if (typeof solution !== 'string' || solution.length === 0 || solution.length > MAX_SOLUTION_LENGTH) {
      return false;
    }
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(solution, 'base64').toString('utf8'));
    } catch {
      return false;
    }
    if (!isPayload(payload)) return false;
    // Every challenge of ours carries its expiry in the signed salt; one without is not ours to accept.
    const expires = Number(new URLSearchParams(payload.salt.split('?')[1] ?? '').get('expires'));
    if (!Number.isSafeInteger(expires) || expires * 1000 < this.now()) return false;
    // altcha-lib's `verifySolution`, synchronously: its Web Crypto calls (a key import per HMAC) cost
    // about 300 µs of CPU a verification, node:crypto about 10 µs. The suite checks both agree.
    const challenge = createHash('sha256').update(`${payload.salt}${payload.number}`, 'utf8').digest('hex');
    if (!safeEqual(challenge, payload.challenge)) return false;
    const signature = createHmac('sha256', Buffer.from(this.#hmacKey, 'utf8'))
      .update(challenge, 'utf8')
      .digest('hex');
    if (!safeEqual(signature, payload.signature)) return false;
    return this.marks.claimOnce(`altcha:${payload.signature}`, CHALLENGE_TTL_MS);
  }

  /** For a covered request: 400 `challenge_required` unless `solution` is valid and unspent. */
  async require(kind: BotChallengeKind, solution: string | undefined): Promise<void> {
    if (!this.covers(kind)) return;
    if (solution === undefined || solution === '') throw challengeRequired();
    if (!(await this.verify(solution))) {
      throw challengeRequired(
        'The challenge solution is wrong, expired or already used: solve a new challenge',
      );
    }
  }
}

interface Payload {
  algorithm: 'SHA-256';
  challenge: string;
  number: number;
  salt: string;
  signature: string;
}

function isPayload(value: unknown): value is Payload {
  if (typeof value !== 'object' || value === null) return false;
  const p = value as Record<string, unknown>;
  return (
    p.algorithm === 'SHA-256' &&
    typeof p.challenge === 'string' &&
    /^[0-9a-f]{64}$/.test(p.challenge) &&
    typeof p.signature === 'string' &&
    /^[0-9a-f]{64}$/.test(p.signature) &&
    typeof p.salt === 'string' &&
    p.salt.length <= 200 &&
    typeof p.number === 'number' &&
    Number.isSafeInteger(p.number) &&
    p.number >= 0
  );
}
