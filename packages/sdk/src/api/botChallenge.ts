import { createHash } from 'node:crypto';
import { MalformedResponseError, GuestRequestError } from '../errors.js';
import type { ApiContext } from './apiContext.js';
import { callService } from './serviceCall.js';

/** An ALTCHA challenge of `GET /v1/challenge` (docs/security.md "Bot challenge"). */
export interface BotChallenge {
  algorithm: 'SHA-256';
  challenge: string;
  salt: string;
  signature: string;
  maxnumber: number;
}

/** `GET /v1/challenge` for this app (its rate sets the difficulty). */
export async function fetchBotChallenge(context: ApiContext, clientId: string): Promise<BotChallenge> {
  const object = await callService(
    context,
    'GET',
    `/v1/challenge?client_id=${encodeURIComponent(clientId)}`,
    {},
    (refusal) => new GuestRequestError(refusal.responseStatus, refusal.errorCode, refusal.message),
  );
  const { algorithm, challenge, salt, signature, maxnumber } = object;
  if (
    algorithm !== 'SHA-256' ||
    typeof challenge !== 'string' ||
    typeof salt !== 'string' ||
    typeof signature !== 'string' ||
    typeof maxnumber !== 'number'
  ) {
    throw new MalformedResponseError('challenge has missing or mistyped fields');
  }
  return { algorithm, challenge, salt, signature, maxnumber };
}

/**
 * Solves a challenge by brute force (SHA-256(salt + n) for n = 0..maxnumber) and returns the `altcha`
 * field a covered request carries: the base64 JSON `{algorithm, challenge, number, salt, signature}`.
 * It runs synchronously (about a million hashes a second); a challenge is short-lived and used once.
 */
export function solveBotChallenge(challenge: BotChallenge): string {
  for (let n = 0; n <= challenge.maxnumber; n++) {
    if (createHash('sha256').update(`${challenge.salt}${n}`).digest('hex') === challenge.challenge) {
      const { algorithm, salt, signature } = challenge;
      const payload = { algorithm, challenge: challenge.challenge, number: n, salt, signature };
      return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64');
    }
  }
  throw new MalformedResponseError('challenge has no solution up to its maxnumber');
}
