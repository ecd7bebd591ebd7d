import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptMnemonicForPin } from '../../src/crypto/keyShares.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call, newUser, pinOf, registerPin } from './pinHelpers.js';

const custodyRow = (server: TestServer, userUuid: number) =>
  server.services.database.db
    .selectFrom('wallet_custody')
    .select(['failed_attempts', 'locked_until', 'lock_count', 'user_share_check'])
    .where('user_uuid', '=', userUuid)
    .executeTakeFirstOrThrow();

/**
 * Issue 18, finding 2: an app backend that was handed the user's login JWT (the backend-integration flow)
 * does not hold the user's key share. Its PIN attempts must not be able to lock the user's wallet.
 */
describe('PIN lockout against a holder of the login JWT alone', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('wrong PINs with a share that is not the user’s never count towards the lock', async () => {
    const user = await newUser(server);
    const reg = await registerPin(server, user, '135790');
    const right = { user_uuid: user.uuid, ...reg.pin, key_share_user: reg.key_share_user };

    // The hostile backend: the user's JWT, guessed PINs, any share it can make up.
    for (let i = 0; i < 12; i++) {
      const res = await call(
        server,
        '/v1/pin/verify',
        {
          user_uuid: user.uuid,
          ...pinOf(String(100000 + i), reg.pin.pin_salt),
          key_share_user: randomBytes(32).toString('hex'),
        },
        user.token,
      );
      expect(res).toEqual({
        status: 401,
        body: expect.objectContaining({ success: false, error: 'invalid_pin', attempts_remaining: 5 }),
      });
    }
    expect(await custodyRow(server, user.uuid)).toMatchObject({
      failed_attempts: 0,
      lock_count: 0,
    });
    expect(Number((await custodyRow(server, user.uuid)).locked_until)).toBe(0);
    // The user is not locked out.
    expect((await call(server, '/v1/pin/verify', right, user.token)).status).toBe(200);

    // The user's own device share with a wrong PIN still counts: the lockout keeps bounding PIN guessing.
    const wrongPin = { ...right, ...pinOf('135791', reg.pin.pin_salt) };
    const codes: number[] = [];
    for (let i = 0; i < 5; i++)
      codes.push((await call(server, '/v1/pin/verify', wrongPin, user.token)).status);
    expect(codes).toEqual([401, 401, 401, 401, 423]);
  });

  it('a wallet from before the fingerprint counts every attempt until the right share fills it in', async () => {
    const user = await newUser(server);
    const reg = await registerPin(server, user, '864209');
    const right = { user_uuid: user.uuid, ...reg.pin, key_share_user: reg.key_share_user };
    await server.services.database.db
      .updateTable('wallet_custody')
      .set({ user_share_check: null })
      .where('user_uuid', '=', user.uuid)
      .execute();
    const garbage = { ...right, key_share_user: randomBytes(32).toString('hex') };

    const before = await call(server, '/v1/pin/verify', garbage, user.token);
    expect(before.body).toMatchObject({ error: 'invalid_pin', attempts_remaining: 4 });
    expect((await call(server, '/v1/pin/verify', right, user.token)).status).toBe(200);
    const filled = await custodyRow(server, user.uuid);
    expect(filled.user_share_check).toMatch(/^[0-9a-f]{64}$/);
    expect(filled.failed_attempts).toBe(0);

    const after = await call(server, '/v1/pin/verify', garbage, user.token);
    expect(after.body).toMatchObject({ error: 'invalid_pin', attempts_remaining: 5 });
    expect((await custodyRow(server, user.uuid)).failed_attempts).toBe(0);
  });

  it('after a PIN reset the new share is the one that counts; the old share no longer can lock', async () => {
    const user = await newUser(server);
    const reg = await registerPin(server, user, '111222');
    const newPin = pinOf('333444');
    const reset = await call<{ key_share_user: string }>(
      server,
      '/v1/pin/reset',
      {
        user_uuid: user.uuid,
        mnemonic: decryptMnemonicForPin(reg.mnemonic, reg.pin.pin_hash),
        new_pin_hash: newPin.pin_hash,
        new_pin_salt: newPin.pin_salt,
      },
      user.token,
    );
    expect(reset.status).toBe(200);
    const stale = { user_uuid: user.uuid, ...reg.pin, key_share_user: reg.key_share_user };
    for (let i = 0; i < 6; i++) {
      expect((await call(server, '/v1/pin/verify', stale, user.token)).body).toMatchObject({
        attempts_remaining: 5,
      });
    }
    const fresh = { user_uuid: user.uuid, ...newPin, key_share_user: reset.body.key_share_user };
    expect((await call(server, '/v1/pin/verify', fresh, user.token)).status).toBe(200);
  });
});
