/**
 * Unit test of the background revocation's retry logic (doubles for the store and the chain; the real-chain
 * suites cover the revocation itself): a failing key is retried after a doubling delay, not on every pass, and
 * other keys are not held up by it.
 */
import { describe, expect, it } from 'vitest';
import type { SessionKeyRecord } from '../../src/stores/sessionKeyStore.js';
import {
  type SessionAccountChain,
  SessionKeyService,
} from '../../src/services/sessionKeys/sessionKeyService.js';

const key = (n: number): SessionKeyRecord => ({
  keyAddress: `0x${n.toString(16).padStart(40, '0')}`,
  userUuid: 1,
  clientId: 'app',
  walletAddress: '0x00000000000000000000000000000000000000aa',
  accountAddress: '0x00000000000000000000000000000000000000bb',
  keySealed: 'sealed',
  policy: {
    calls: [],
    max_value_per_call_wei: '0',
    max_value_per_day_wei: '0',
    token_limits: [],
    valid_for_seconds: 60,
  },
  validUntil: 10_000,
  state: 'revoking',
  txHash: undefined,
  createdAt: 0,
  revokedAt: undefined,
  revokeReason: 'grant_ended',
  revokeTxHash: undefined,
});

describe('background revocation', () => {
  it('retries a failing key after a doubling delay and revokes the others meanwhile', async () => {
    let now = 0;
    const pending = new Map([key(1), key(2)].map((k) => [k.keyAddress, k]));
    const attempts: string[] = [];
    let failing = true;
    const store = {
      keysToRevoke: async () => [...pending.values()],
      markRevoked: async (address: string) => pending.delete(address),
    };
    let opened = 0;
    // Key 1's sealed secret opens to key 1; key 2's opens to a key that does not match it while `failing`.
    const chain = {
      session: async () => ({ validUntil: 10_000, active: true, maxValuePerCall: 0n, maxValuePerDay: 0n }),
      chainNow: async () => 100,
      chainDay: async () => 0,
      keyAddress: () => {
        opened++;
        return failing ? key(1).keyAddress : key(2).keyAddress;
      },
      sessionSigner: () => ({ address: key(1).keyAddress, signUserOpHash: async () => '0x' }),
      revokeCallData: () => '0x',
      submit: async () => {
        attempts.push('submit');
        return { success: true, txHash: '0xt', userOpHash: '0xu' };
      },
    };
    const service = new SessionKeyService(
      store as never,
      chain as unknown as SessionAccountChain,
      {} as never,
      {} as never,
      { seal: () => '', open: () => Buffer.alloc(32, 1) },
      { info: () => undefined, warn: () => undefined, error: () => undefined },
      () => now,
    );

    await service.sweep();
    expect(pending.has(key(1).keyAddress)).toBe(false);
    expect(pending.has(key(2).keyAddress)).toBe(true);
    expect(attempts).toHaveLength(1);
    expect(opened).toBe(2);

    // Within the delay (2 s after the first failure) the failing key is not tried again.
    now = 1_000;
    await service.sweep();
    expect(opened).toBe(2);
    // After it, it is; it fails again and the next delay is 4 s.
    now = 2_500;
    await service.sweep();
    expect(opened).toBe(3);
    now = 5_000;
    await service.sweep();
    expect(opened).toBe(3);
    expect(pending.has(key(2).keyAddress)).toBe(true);
    failing = false;
    now = 6_600;
    await service.sweep();
    expect(pending.has(key(2).keyAddress)).toBe(false);
    expect(attempts).toHaveLength(2);
  });
});
