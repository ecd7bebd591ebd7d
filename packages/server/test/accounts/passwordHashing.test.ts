import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword, SCRYPT_PARAMS } from '../../src/crypto/passwordHasher.js';
import { Pbkdf2Pool } from '../../src/crypto/pbkdf2Pool.js';
import { isAppError } from '../../src/errors.js';
import { SharePinDeriver } from '../../src/services/custody/sharePinDeriver.js';
import { post } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const password = 'correct horse battery';
const newEmail = () => `p${Math.random().toString(36).slice(2)}@example.com`;

describe('scrypt parameters: N=2^17 for new hashes, older hashes upgraded at the next sign-in', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { SCRYPT_LOG_N: '17' } });
  }, 120_000);
  afterAll(() => server?.close());

  it('stores new passwords with N=2^17, r=8, p=1', async () => {
    expect(SCRYPT_PARAMS).toMatchObject({ N: 2 ** 17, r: 8, p: 1 });
    const email = newEmail();
    expect((await post(`${server.url}/v1/dev-user/register`, { email, password })).status).toBe(201);
    const stored = await server.services.users.findByEmail(email);
    expect(stored?.passwordHash).toMatch(/^scrypt\$131072\$8\$1\$/);
  });

  it('a user stored with N=2^15 signs in, and the stored hash now has N=2^17', async () => {
    const email = newEmail();
    expect((await post(`${server.url}/v1/dev-user/register`, { email, password })).status).toBe(201);
    const user = (await server.services.users.findByEmail(email))!;
    const old = await hashPassword(password, { ...SCRYPT_PARAMS, N: 2 ** 15 });
    expect(await server.services.users.replacePasswordHash(user.userUuid, user.passwordHash, old)).toBe(true);

    // A wrong password changes nothing.
    expect(
      (await post(`${server.url}/v1/dev-user/login_devuser`, { email, password: 'wrong one!' })).status,
    ).toBe(401);
    expect((await server.services.users.findByEmail(email))?.passwordHash).toBe(old);

    expect((await post(`${server.url}/v1/dev-user/login_devuser`, { email, password })).status).toBe(200);
    const upgraded = (await server.services.users.findByEmail(email))!.passwordHash;
    expect(upgraded).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(upgraded).not.toBe(old);
    // The upgraded hash is the same password.
    expect((await post(`${server.url}/v1/dev-user/login_devuser`, { email, password })).status).toBe(200);
    expect((await server.services.users.findByEmail(email))!.passwordHash).toBe(upgraded);
  }, 60_000);
});

describe('the scrypt queue is bounded: when full, 503 overloaded with Retry-After', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: { SCRYPT_QUEUE_MAX: '1', RATE_LIMITS: 'login=1000/1m,login_address=1000/1m' },
    });
  }, 120_000);
  afterAll(() => server?.close());

  it('a burst of sign-ins beyond the running and waiting hashes is refused at once', async () => {
    const burst = await Promise.all(
      Array.from({ length: 24 }, () =>
        post(`${server.url}/v1/dev-user/login_devuser`, { email: newEmail(), password }),
      ),
    );
    const refused = burst.filter((r) => r.status === 503);
    const answered = burst.filter((r) => r.status === 401);
    expect(refused.length + answered.length).toBe(24);
    // At most one hash per core runs and one waits; everything else is refused.
    expect(answered.length).toBeGreaterThanOrEqual(2);
    expect(refused.length).toBeGreaterThan(0);
    for (const res of refused) {
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await res.json()).toMatchObject({
        success: false,
        error: 'overloaded',
        message: expect.any(String),
      });
    }
    // Once the burst is over the service answers normally again.
    expect(
      (await post(`${server.url}/v1/dev-user/login_devuser`, { email: newEmail(), password })).status,
    ).toBe(401);
  }, 60_000);
});

describe('the PBKDF2 queue of PIN derivations is bounded', () => {
  it('runs `concurrency` derivations, queues `maxQueued`, and refuses the rest with overloaded', async () => {
    const pool = new Pbkdf2Pool({ size: 1, perWorker: 1, maxQueued: 2 });
    const deriver = new SharePinDeriver('dauth/share_pin/v1', pool);
    const pinHash = 'ab'.repeat(32);
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => deriver.derive(pinHash)));
    const fulfilled = results.filter((r) => r.status === 'fulfilled');
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(fulfilled).toHaveLength(3);
    expect(rejected).toHaveLength(3);
    for (const r of rejected) {
      expect(isAppError(r.reason)).toBe(true);
      expect(r.reason).toMatchObject({ status: 503, code: 'overloaded' });
      expect(r.reason.details.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    }
    // The queue drained: the next derivation runs.
    expect((await deriver.derive(pinHash)).length).toBe(32);
    expect(deriver.queued).toBe(0);
    await pool.close();
  });
});
