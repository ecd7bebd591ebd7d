import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call, newUser, pinOf, registerPin } from './pinHelpers.js';

const row = (server: TestServer, userUuid: number) =>
  server.services.database.db
    .selectFrom('wallet_custody')
    .select(['failed_attempts', 'owner_key_check'])
    .where('user_uuid', '=', userUuid)
    .executeTakeFirstOrThrow();

const setCheck = (server: TestServer, userUuid: number, value: string | null) =>
  server.services.database.db
    .updateTable('wallet_custody')
    .set({ owner_key_check: value })
    .where('user_uuid', '=', userUuid)
    .execute();

/**
 * The owner-key fingerprint (`owner_key_check`, custody/ownerKeyCheck.ts) replaces the address
 * derivation of a correct PIN; without it, or when it does not match, the address still decides.
 */
describe('PIN check by the owner-key fingerprint', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('is stored at registration; a right PIN passes and a wrong one still counts', async () => {
    const user = await newUser(server);
    const reg = await registerPin(server, user, '246801');
    const stored = (await row(server, user.uuid)).owner_key_check;
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    const right = { user_uuid: user.uuid, ...reg.pin, key_share_user: reg.key_share_user };
    expect(await call(server, '/v1/pin/verify', right, user.token)).toMatchObject({
      status: 200,
      body: { address: reg.address },
    });
    const wrong = { ...right, ...pinOf('246802', reg.pin.pin_salt) };
    expect((await call(server, '/v1/pin/verify', wrong, user.token)).body).toMatchObject({
      error: 'invalid_pin',
      attempts_remaining: 4,
    });
    expect(await row(server, user.uuid)).toEqual({ failed_attempts: 1, owner_key_check: stored });
    // The next right PIN ends the run of wrong ones.
    expect((await call(server, '/v1/pin/verify', right, user.token)).status).toBe(200);
    expect((await row(server, user.uuid)).failed_attempts).toBe(0);
  });

  it('is filled in by the first right PIN of a row without it (the address decides that one)', async () => {
    const user = await newUser(server);
    const reg = await registerPin(server, user, '975310');
    const stored = (await row(server, user.uuid)).owner_key_check;
    await setCheck(server, user.uuid, null);
    const right = { user_uuid: user.uuid, ...reg.pin, key_share_user: reg.key_share_user };
    const wrong = { ...right, ...pinOf('975311', reg.pin.pin_salt) };
    expect((await call(server, '/v1/pin/verify', wrong, user.token)).body).toMatchObject({
      attempts_remaining: 4,
    });
    expect((await row(server, user.uuid)).owner_key_check).toBeNull();
    expect((await call(server, '/v1/pin/verify', right, user.token)).status).toBe(200);
    expect(await row(server, user.uuid)).toEqual({ failed_attempts: 0, owner_key_check: stored });
  });

  it('a fingerprint that does not match never refuses the right PIN, and is repaired by it', async () => {
    const user = await newUser(server);
    const reg = await registerPin(server, user, '112358');
    const stored = (await row(server, user.uuid)).owner_key_check;
    await setCheck(server, user.uuid, randomBytes(32).toString('hex'));
    const right = { user_uuid: user.uuid, ...reg.pin, key_share_user: reg.key_share_user };
    const wrong = { ...right, ...pinOf('112359', reg.pin.pin_salt) };
    expect((await call(server, '/v1/pin/verify', wrong, user.token)).body).toMatchObject({
      attempts_remaining: 4,
    });
    expect((await call(server, '/v1/pin/verify', right, user.token)).status).toBe(200);
    expect(await row(server, user.uuid)).toEqual({ failed_attempts: 0, owner_key_check: stored });
  });
});
