import { dauthAccountAbi } from '@dauth/contracts';
import { sql } from 'kysely';
import { type Address, encodeFunctionData, erc20Abi, getAddress } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptMnemonicForPin } from '../../src/crypto/keyShares.js';
import { ShareCheck } from '../../src/services/custody/shareCheck.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  call,
  chainClient,
  newUser,
  pinOf,
  registerPin,
  type RegisteredPin,
  type TestUser,
  tokenBalance,
  verificationToken,
} from './pinHelpers.js';

interface Recovered {
  success: boolean;
  address: Address;
  mnemonic_enc: string;
  key_share_user: string;
}

describe.each([{ postgres: false }, { postgres: true }])(
  'PIN recovery: owner rotation (postgres: $postgres)',
  (opts) => {
    let server: TestServer;
    beforeAll(async () => {
      const { postgresAvailable } = await import('../helpers/environment.js');
      if (opts.postgres && !postgresAvailable) return;
      server = await startTestServer(opts);
    });
    afterAll(() => server?.close());

    const onChainOwner = (address: Address) =>
      chainClient(server).readContract({ address, abi: dauthAccountAbi, functionName: 'owner' });
    const tokenTransfer = (to: Address, amount: bigint) => ({
      to: server.services.chain.info.contracts.token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
    });
    const proofOf = (user: TestUser, pin: { pin_hash: string; pin_salt: string }, share: string) => ({
      user_uuid: user.uuid,
      ...pin,
      key_share_user: share,
    });

    /** A user with a registered PIN and a deployed main wallet holding 990 tokens. */
    async function userWithDeployedWallet(): Promise<{ user: TestUser; reg: RegisteredPin }> {
      const user = await newUser(server, 'recover');
      const reg = await registerPin(server, user, '314159');
      await server.services.chain.faucet.fund({ address: reg.address, token: 1_000n });
      const sink = getAddress(`0x${'7'.repeat(40)}`);
      const op = await call(
        server,
        '/v1/pin/verify',
        { ...proofOf(user, reg.pin, reg.key_share_user), calls: [tokenTransfer(sink, 10n)] },
        user.token,
      );
      expect(op.status).toBe(200);
      return { user, reg };
    }

    it('rotates the owner of the user’s wallet, keeping address, slots, balances and the dex-owned content wallets', async (ctx) => {
      if (!server) return ctx.skip();
      const { user, reg } = await userWithDeployedWallet();
      const oldOwner = (await server.services.custody.custodyOf(user.uuid))!.owner;

      // Two slots (two apps): content wallets at C_SALT = slot id, recorded on the dex for the main wallet.
      const slots = [];
      for (const name of ['game-a', 'game-b']) {
        const { client } = await server.services.clients.create({
          ownerUuid: user.uuid,
          orgId: await server.services.orgs.orgForNewApp({ kind: 'user', userId: user.uuid }, undefined),
          name,
          redirectUris: ['http://127.0.0.1:9/callback'],
        });
        slots.push((await server.services.slots.ensureSlot(user.uuid, client.clientId)).slot);
      }
      const [slotA, slotB] = slots as [(typeof slots)[0], (typeof slots)[0]];
      // Slot A's wallet gets tokens and is deployed by a transfer from it; slot B's stays counterfactual.
      await server.services.chain.faucet.fund({ address: slotA.contentAddress, token: 50n });
      const fromA = await call(
        server,
        '/v1/token/transfer',
        {
          from_address: slotA.contentAddress,
          to_address: reg.address,
          amount: '5',
          contract_address: server.services.chain.info.contracts.token,
          ...reg.pin,
          key_share_user: reg.key_share_user,
        },
        user.token,
      );
      expect(fromA.status).toBe(200);
      const client = chainClient(server);
      expect(await client.getCode({ address: slotB.contentAddress })).toBeUndefined();
      // Content wallets are the dex's (they follow the slot), not the user key's: rotation leaves them.
      const dex = server.services.chain.info.contracts.dex;
      expect(await onChainOwner(slotA.contentAddress)).toBe(dex);

      const balances = async () => ({
        main: await tokenBalance(server, reg.address),
        a: await tokenBalance(server, slotA.contentAddress),
      });
      const before = await balances();
      expect(before).toEqual({ main: 995n, a: 45n });

      // Without a valid verification token nothing happens (and the real token is not used up).
      const token = await verificationToken(server, user);
      const custodyBefore = await server.services.custody.custodyOf(user.uuid);
      const bogus = await call(
        server,
        '/v1/pin/recover',
        { user_uuid: user.uuid, ...pinOf('000000'), verification_token: `${token.slice(0, -2)}xx` },
        user.token,
      );
      expect(bogus.status).toBe(401);
      expect(bogus.body.error).toBe('invalid_verification_token');
      expect(await server.services.custody.custodyOf(user.uuid)).toEqual(custodyBefore);
      expect(await onChainOwner(reg.address)).toBe(oldOwner);

      const newPin = pinOf('271828');
      const recovered = await call<Recovered>(
        server,
        '/v1/pin/recover',
        { user_uuid: user.uuid, ...newPin, verification_token: token },
        user.token,
      );
      expect(recovered.status).toBe(200);
      expect(recovered.body.address).toBe(reg.address);
      expect(recovered.body.key_share_user).toMatch(/^[0-9a-f]{64}$/);

      // The new mnemonic is readable with the new PIN hash; its key is the new owner everywhere.
      const newMnemonic = decryptMnemonicForPin(recovered.body.mnemonic_enc, newPin.pin_hash);
      const newOwner = mnemonicToAccount(newMnemonic).address;
      expect(newOwner).not.toBe(oldOwner);
      expect(await onChainOwner(reg.address)).toBe(newOwner);
      expect(await onChainOwner(slotA.contentAddress)).toBe(dex);
      expect(await client.getCode({ address: slotB.contentAddress })).toBeUndefined();
      expect(
        (await server.services.wallets.listForUser(user.uuid)).map((w) => [w.owner, w.deployed]),
      ).toEqual([[newOwner, true]]);
      expect((await server.services.custody.custodyOf(user.uuid))?.owner).toBe(newOwner);

      // Slots still belong to the main wallet on the dex; balances untouched.
      for (const slot of [slotA, slotB]) {
        expect(await server.services.chain.gateway.slotOwner(BigInt(slot.id))).toBe(reg.address);
      }
      expect(await balances()).toEqual(before);

      // The old share is invalid (old PIN or new); the new one signs from the main wallet and a slot wallet.
      // The stored share fingerprint is the new share's, so the old share is refused without counting.
      const row = await server.services.database.db
        .selectFrom('wallet_custody')
        .select(['user_share_check', 'key_version', 'failed_attempts'])
        .where('user_uuid', '=', user.uuid)
        .executeTakeFirstOrThrow();
      expect(row.user_share_check).toBe(
        new ShareCheck(server.services.secrets.masterKey).of(
          Buffer.from(recovered.body.key_share_user, 'hex'),
          user.uuid,
          Number(row.key_version),
        ),
      );
      const oldProof = proofOf(user, reg.pin, reg.key_share_user);
      expect((await call(server, '/v1/pin/verify', oldProof, user.token)).body).toMatchObject({
        error: 'invalid_pin',
        attempts_remaining: 5,
      });
      expect(
        (await call(server, '/v1/pin/verify', proofOf(user, newPin, reg.key_share_user), user.token)).body
          .error,
      ).toBe('invalid_pin');
      const newProof = proofOf(user, newPin, recovered.body.key_share_user);
      const sink = getAddress(`0x${'8'.repeat(40)}`);
      const moved = await call(
        server,
        '/v1/pin/verify',
        { ...newProof, calls: [tokenTransfer(sink, 3n)] },
        user.token,
      );
      expect(moved.status).toBe(200);
      expect(await tokenBalance(server, sink)).toBe(3n);
      await server.services.chain.faucet.fund({ address: slotB.contentAddress, token: 4n });
      const fromB = await call(
        server,
        '/v1/token/transfer',
        {
          from_address: slotB.contentAddress,
          to_address: sink,
          amount: '4',
          contract_address: server.services.chain.info.contracts.token,
          ...newPin,
          key_share_user: recovered.body.key_share_user,
        },
        user.token,
      );
      expect(fromB.status).toBe(200);
      expect(await tokenBalance(server, sink)).toBe(7n);

      // The verification token was single use.
      const reuse = await call(
        server,
        '/v1/pin/recover',
        { user_uuid: user.uuid, ...pinOf('000000'), verification_token: token },
        user.token,
      );
      expect(reuse.status).toBe(401);
      expect(reuse.body.error).toBe('invalid_verification_token');
      expect((await server.services.custody.custodyOf(user.uuid))?.owner).toBe(newOwner);
    });

    it('repairs a rotation whose changeOwner landed but whose stored update failed, at the next operation', async (ctx) => {
      if (!server) return ctx.skip();
      const { user, reg } = await userWithDeployedWallet();
      const oldOwner = (await server.services.custody.custodyOf(user.uuid))!.owner;
      const token = await verificationToken(server, user);

      // Fault: the database refuses to store a new owner for this user (after the chain changed).
      const db = server.services.database.db;
      const trigger = `fail_rotation_${user.uuid}`;
      if (server.services.database.dialect === 'sqlite') {
        await sql
          .raw(
            `create trigger ${trigger} before update of owner on wallet_custody when old.user_uuid = ${user.uuid} ` +
              `begin select raise(abort, 'injected fault'); end`,
          )
          .execute(db);
      } else {
        await sql
          .raw(
            `create function ${trigger}() returns trigger as $$ begin raise exception 'injected fault'; end $$ language plpgsql;` +
              ` create trigger ${trigger} before update of owner on wallet_custody for each row` +
              ` when (old.user_uuid = ${user.uuid}) execute function ${trigger}()`,
          )
          .execute(db);
      }
      const failed = await call(
        server,
        '/v1/pin/recover',
        { user_uuid: user.uuid, ...pinOf('161803'), verification_token: token },
        user.token,
      );
      expect(failed.status).toBe(500);
      expect(JSON.stringify(failed.body)).not.toContain('injected');

      // The chain moved, the database did not: the pending rotation records where it was going.
      const pending = await db
        .selectFrom('pending_rotations')
        .selectAll()
        .where('user_uuid', '=', user.uuid)
        .executeTakeFirstOrThrow();
      expect(await onChainOwner(reg.address)).toBe(pending.new_owner);
      expect(pending.old_owner).toBe(oldOwner);
      expect((await server.services.custody.custodyOf(user.uuid))?.owner).toBe(oldOwner);
      expect(Number(pending.lease_until)).toBe(0);

      if (server.services.database.dialect === 'sqlite') {
        await sql.raw(`drop trigger ${trigger}`).execute(db);
      } else {
        await sql.raw(`drop trigger ${trigger} on wallet_custody; drop function ${trigger}()`).execute(db);
      }

      // The next operation compares the on-chain owner with the stored one and completes the rotation
      // before checking the (now stale) share, which then fails.
      const next = await call(
        server,
        '/v1/pin/verify',
        proofOf(user, reg.pin, reg.key_share_user),
        user.token,
      );
      expect(next.status).toBe(401);
      expect(next.body.error).toBe('invalid_pin');
      expect((await server.services.custody.custodyOf(user.uuid))?.owner).toBe(pending.new_owner);
      expect((await server.services.wallets.mainWallet(user.uuid))?.owner).toBe(pending.new_owner);
      expect(
        await db
          .selectFrom('pending_rotations')
          .select('user_uuid')
          .where('user_uuid', '=', user.uuid)
          .execute(),
      ).toEqual([]);

      // A minute later the user recovers again, and the wallet is fully usable at the same address.
      await db
        .updateTable('email_codes')
        .set((eb) => ({ created_at: eb('created_at', '-', 61_000) }))
        .where('user_uuid', '=', user.uuid)
        .execute();
      const finalPin = pinOf('577215');
      const again = await call<Recovered>(
        server,
        '/v1/pin/recover',
        { user_uuid: user.uuid, ...finalPin, verification_token: await verificationToken(server, user) },
        user.token,
      );
      expect(again.status).toBe(200);
      expect(again.body.address).toBe(reg.address);
      const finalOwner = (await server.services.custody.custodyOf(user.uuid))!.owner;
      expect(finalOwner).not.toBe(pending.new_owner);
      expect(await onChainOwner(reg.address)).toBe(finalOwner);
      const sink = getAddress(`0x${'9'.repeat(40)}`);
      const moved = await call(
        server,
        '/v1/pin/verify',
        { ...proofOf(user, finalPin, again.body.key_share_user), calls: [tokenTransfer(sink, 90n)] },
        user.token,
      );
      expect(moved.status).toBe(200);
      expect(await tokenBalance(server, reg.address)).toBe(900n);
    });
  },
);
