/**
 * EntryPoint v0.6 nonces are two-dimensional: `nonce = key << 64 | sequence`, one sequence per (wallet, key).
 * Whoever hands out a wallet's nonces must own the key it hands them out under: two allocators on one key
 * both read sequence N, and when they sign the same calls in the same second they produce one and the same
 * operation (one hash): one runs, and the other's sender, looking its hash up, takes that run for its own.
 *
 * The keys the platform uses:
 * - `replicaNonceKey(REPLICA_ID)`: every wallet operation a replica sends (0 for replica 0, so a single
 *   replica, and every wallet's history before replicas, stays on the usual sequence);
 * - 1 … CONTENT_BATCHES_IN_FLIGHT (at most 32): the operator wallet's consumption batches (usageBatcher),
 *   sent by the one replica holding the batcher lease.
 */

/** The sequence part of a nonce (its low 64 bits; the key is above them). */
const NONCE_SEQUENCE_MASK = (1n << 64n) - 1n;

/** The key a nonce was taken under: whether it is used is read from that key's sequence (`getNonce(sender, key)`). */
export function nonceKeyOf(nonce: bigint): bigint {
  return nonce >> 64n;
}

/** True for the first nonce of a key: the wallet's first operation under it (it may still need deploying). */
export function isFirstOfKey(nonce: bigint): boolean {
  return (nonce & NONCE_SEQUENCE_MASK) === 0n;
}

/**
 * The nonce key replica `replicaIndex` sends every wallet operation under: 0 for replica 0, `index << 32`
 * for the others (far above the consumption batches' 1 … 32). A wallet's first operation under a new key
 * writes a fresh EntryPoint storage slot (about 17,000 gas more, once per wallet and replica).
 */
export function replicaNonceKey(replicaIndex: number): bigint {
  if (!Number.isInteger(replicaIndex) || replicaIndex < 0)
    throw new Error(`bad replica index ${replicaIndex}`);
  return BigInt(replicaIndex) << 32n;
}
