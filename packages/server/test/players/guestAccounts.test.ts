import { createHash, randomBytes } from 'node:crypto';
import { type Address, getAddress, parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  buy,
  fund,
  get,
  newProvider,
  onChain,
  post,
  type Player,
  type Provider,
} from '../content/contentSupport.js';

interface GuestAnswer {
  success: boolean;
  token: string;
  uuid: string;
  guest_secret: string;
}

/** The JWT's claims, read without verifying (the server verified it). */
const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

for (const database of ['sqlite', 'postgres'] as const) {
  describe(`guest accounts (${database}, real chain)`, () => {
    let server: TestServer;
    let provider: Provider;

    beforeAll(async () => {
      server = await startTestServer({ postgres: database === 'postgres' });
      provider = await newProvider(server, 40);
    });
    afterAll(() => server?.close());

    it('create → PIN → slot → content purchase → upgrade by e-mail keeps uuid, wallet and slot; the secret dies', async () => {
      const created = await post<GuestAnswer>(server, '/v1/dev-user/guest', { client_id: provider.clientId });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        success: true,
        token: expect.any(String),
        uuid: expect.stringMatching(/^\d+$/),
        guest_secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      });
      expect(claimsOf(created.body.token)).toMatchObject({
        sub: created.body.uuid,
        azp: provider.clientId,
        token_use: 'login',
      });
      // Stored as a keyed hash, never as the secret itself.
      const row = await server.services.database.db
        .selectFrom('guest_accounts')
        .selectAll()
        .where('user_uuid', '=', Number(created.body.uuid))
        .executeTakeFirstOrThrow();
      expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.secret_hash).not.toContain(created.body.guest_secret);

      const login = await post<GuestAnswer>(server, '/v1/dev-user/guest/login', {
        uuid: created.body.uuid,
        guest_secret: created.body.guest_secret,
      });
      expect(login.status).toBe(200);
      expect(login.body).toEqual({ success: true, token: expect.any(String), uuid: created.body.uuid });
      expect(claimsOf(login.body.token).azp).toBe(provider.clientId);
      const uuid = Number(created.body.uuid);
      const token = login.body.token;

      // PIN: a wallet like anyone's.
      const pinSalt = randomBytes(32).toString('hex');
      const pinHash = createHash('sha256').update(`123456${pinSalt}`, 'utf8').digest('hex');
      const pin = await post<{ data: { address: Address; key_share_user: string }[] }>(
        server,
        '/v1/pin/register',
        { user_uuid: uuid, pin_hash: pinHash, pin_salt: pinSalt },
        token,
      );
      expect(pin.status).toBe(200);
      const wallet = getAddress(pin.body.data[0]!.address);
      await fund(server, wallet, parseEther('5'));
      const { slot } = await server.services.slots.ensureSlot(uuid, provider.clientId);
      const player: Player = {
        user: { uuid, token },
        pin: { pin_hash: pinHash, pin_salt: pinSalt, key_share_user: pin.body.data[0]!.key_share_user },
        wallet,
        slotId: slot.id,
        slot: getAddress(slot.contentAddress),
      };
      const bought = await buy(server, provider, player, '1000');
      expect(bought.status).toBe(200);
      expect(await onChain(server, provider.cuid, player.slot)).toEqual({ balance: 1000n, used: 0n });

      // A guest has no e-mail: the e-mail PIN recovery path says so.
      const mail = await post(server, '/v1/auth/email/send-code', { purpose: 'pin_recover' }, token);
      expect(mail.status).toBe(409);
      expect(mail.body).toMatchObject({ success: false, error: 'no_email' });

      const email = `upgraded-${randomBytes(4).toString('hex')}@example.com`;
      const upgrade = await post(
        server,
        '/v1/dev-user/guest/upgrade',
        { email, password: 'correct horse battery', nickname: 'Ada' },
        token,
      );
      expect(upgrade.status).toBe(200);
      expect(upgrade.body).toEqual({ success: true, uuid: String(uuid) });

      // Same uuid by password login, same wallet, same slot and its content.
      const passwordLogin = await post<GuestAnswer>(server, '/v1/dev-user/login_devuser', {
        email,
        password: 'correct horse battery',
      });
      expect(passwordLogin.status).toBe(200);
      expect(passwordLogin.body.uuid).toBe(String(uuid));
      const walletAfter = await get<{ address: string }>(
        server,
        '/v1/dev-user/wallet',
        passwordLogin.body.token,
      );
      expect(walletAfter.body.address && getAddress(walletAfter.body.address)).toBe(wallet);
      const slotsAfter = await get<{ slots: { slot_id: string }[] }>(
        server,
        '/v1/dev-user/slots',
        passwordLogin.body.token,
      );
      expect(slotsAfter.body.slots.map((s) => s.slot_id)).toContain(player.slotId);
      expect(await onChain(server, provider.cuid, player.slot)).toEqual({ balance: 1000n, used: 0n });

      // The guest secret is dead, and a second upgrade is refused.
      const again = await post(server, '/v1/dev-user/guest/login', {
        uuid: String(uuid),
        guest_secret: created.body.guest_secret,
      });
      expect(again.status).toBe(401);
      expect(again.body).toMatchObject({ success: false, error: 'invalid_credentials' });
      const twice = await post(
        server,
        '/v1/dev-user/guest/upgrade',
        { email: `x${email}`, password: 'correct horse battery' },
        token,
      );
      expect(twice.status).toBe(409);
      expect(twice.body).toMatchObject({ error: 'not_guest' });
    });

    it('upgrading to an e-mail that has an account answers 409 and changes nothing', async () => {
      const taken = `taken-${randomBytes(4).toString('hex')}@example.com`;
      expect(
        (await post(server, '/v1/dev-user/register', { email: taken, password: 'correct horse battery' }))
          .status,
      ).toBe(201);
      const guest = await post<GuestAnswer>(server, '/v1/dev-user/guest', { client_id: provider.clientId });
      const upgrade = await post(
        server,
        '/v1/dev-user/guest/upgrade',
        { email: taken.toUpperCase(), password: 'another good password' },
        guest.body.token,
      );
      expect(upgrade.status).toBe(409);
      expect(upgrade.body).toMatchObject({ success: false, error: 'email_taken' });
      // Still a guest: the secret still works.
      const login = await post(server, '/v1/dev-user/guest/login', {
        uuid: guest.body.uuid,
        guest_secret: guest.body.guest_secret,
      });
      expect(login.status).toBe(200);
    });

    it('refuses an unknown client_id at creation (400, nothing created)', async () => {
      const res = await post(server, '/v1/dev-user/guest', { client_id: 'no-such-app' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: 'invalid_request', field: 'client_id' });
    });

    it('limits wrong guest secrets: 20 attempts on one uuid end in 429, and then the right one waits too', async () => {
      const guest = await post<GuestAnswer>(server, '/v1/dev-user/guest', { client_id: provider.clientId });
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) {
        const res = await post(server, '/v1/dev-user/guest/login', {
          uuid: guest.body.uuid,
          guest_secret: randomBytes(32).toString('base64url'),
        });
        statuses.push(res.status);
      }
      expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
      expect(statuses.slice(10)).toEqual(Array(10).fill(429));
      const right = await post(server, '/v1/dev-user/guest/login', {
        uuid: guest.body.uuid,
        guest_secret: guest.body.guest_secret,
      });
      expect(right.status).toBe(429);
    });
  });
}
