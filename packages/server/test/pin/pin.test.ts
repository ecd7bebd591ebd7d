import { dauthAccountAbi, dauthAccountFactoryAbi } from '@dauth/contracts';
import { type Address, encodeFunctionData, erc20Abi, getAddress } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressOfPrivateKey } from '../../src/chain/operations/operationOwner.js';
import { combineShares, decryptMnemonicForPin, deriveSharePin } from '../../src/crypto/keyShares.js';
import { mnemonicToOwnerKey } from '../../src/crypto/ownerKey.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  call,
  chainClient,
  custodyRow,
  newUser,
  pinOf,
  registerPin,
  type TestUser,
  tokenBalance,
} from './pinHelpers.js';

describe.each([{ postgres: false }, { postgres: true }])('PIN custody (postgres: $postgres)', (opts) => {
  let server: TestServer;
  beforeAll(async () => {
    const { postgresAvailable } = await import('../helpers/environment.js');
    if (opts.postgres && !postgresAvailable) return;
    server = await startTestServer(opts);
  });
  afterAll(() => server?.close());

  it('registers a wallet whose shares recombine to the mnemonic key, at factory getAddress(owner, 0)', async (ctx) => {
    if (!server) return ctx.skip();
    const user = await newUser(server);
    const registered = await registerPin(server, user, '482913');
    expect(registered.address).toBe(getAddress(registered.address));
    expect(registered.key_share_user).toMatch(/^[0-9a-f]{64}$/);

    // The returned mnemonic is readable with the PIN hash alone; its key is the stored owner.
    const mnemonic = decryptMnemonicForPin(registered.mnemonic, registered.pin.pin_hash);
    expect(mnemonic.split(' ')).toHaveLength(12);
    const owner = mnemonicToAccount(mnemonic).address;
    const custody = await server.services.custody.custodyOf(user.uuid);
    expect(custody?.owner).toBe(owner);
    expect(custody?.walletAddress).toBe(registered.address);

    // share_pin ⊕ share_server ⊕ share_user = the mnemonic's key.
    const key = await mnemonicToOwnerKey(mnemonic);
    const sharePin = await deriveSharePin(registered.pin.pin_hash, server.config.pinShareSalt);
    const shareServer = server.services.secretBox.open(
      custody!.serverShareSealed,
      `dauth/custody/server_share/v1:${user.uuid}:${owner.toLowerCase()}:1`,
    );
    const combined = combineShares(sharePin, shareServer, Buffer.from(registered.key_share_user, 'hex'));
    expect(combined.equals(key)).toBe(true);
    expect(addressOfPrivateKey(combined)).toBe(owner);

    // The address is the factory's counterfactual getAddress(owner, W_SALT = 0), not yet deployed.
    const client = chainClient(server);
    const factory = server.services.chain.info.contracts.account_factory;
    expect(
      await client.readContract({
        address: factory,
        abi: dauthAccountFactoryAbi,
        functionName: 'getAddress',
        args: [owner, 0n],
      }),
    ).toBe(registered.address);
    expect(await client.getCode({ address: registered.address })).toBeUndefined();

    // Nothing stored in plaintext: the sealed columns hold neither the mnemonic nor the share.
    const row = await custodyRow(server, user.uuid);
    expect(JSON.stringify(row)).not.toContain(mnemonic.split(' ')[0]! + ' ' + mnemonic.split(' ')[1]!);
    expect(JSON.stringify(row)).not.toContain(shareServer.toString('hex'));
    expect(JSON.stringify(row)).not.toContain(registered.key_share_user);

    // A second registration is 409 and changes nothing.
    const again = await call(
      server,
      '/v1/pin/register',
      { user_uuid: user.uuid, ...pinOf('111111') },
      user.token,
    );
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, error: 'wallet_exists' });
    expect(await custodyRow(server, user.uuid)).toEqual(row);
    expect(await server.services.wallets.listForUser(user.uuid)).toHaveLength(1);
  });

  it('verifies the PIN, and with calls signs one sponsored operation that deploys the wallet and moves tokens', async (ctx) => {
    if (!server) return ctx.skip();
    const user = await newUser(server);
    const reg = await registerPin(server, user, '000000');
    const proof = { user_uuid: user.uuid, ...reg.pin, key_share_user: reg.key_share_user };

    const proved = await call(server, '/v1/pin/verify', proof, user.token);
    expect(proved).toEqual({ status: 200, body: { success: true, address: reg.address } });

    const token = server.services.chain.info.contracts.token;
    await server.services.chain.faucet.fund({ address: reg.address, token: 1_000n });
    const recipient = getAddress(`0x${'5'.repeat(40)}`);
    const before = await tokenBalance(server, recipient);
    const transfer = (amount: bigint) => ({
      to: token,
      value: '0',
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [recipient, amount] }),
    });
    const single = await call<{ success: boolean; user_op_hash: string; tx_hash: string }>(
      server,
      '/v1/pin/verify',
      { ...proof, calls: [transfer(10n)] },
      user.token,
    );
    expect(single.status).toBe(200);
    expect(single.body.user_op_hash).toMatch(/^0x[0-9a-f]{64}$/);
    const client = chainClient(server);
    const receipt = await client.getTransactionReceipt({ hash: single.body.tx_hash as `0x${string}` });
    expect(receipt.status).toBe('success');
    expect(await tokenBalance(server, recipient)).toBe(before + 10n);

    // Deployed by that first operation, and owned on chain by the mnemonic's key.
    const mnemonic = decryptMnemonicForPin(reg.mnemonic, reg.pin.pin_hash);
    expect(
      await client.readContract({ address: reg.address, abi: dauthAccountAbi, functionName: 'owner' }),
    ).toBe(mnemonicToAccount(mnemonic).address);
    expect((await server.services.wallets.mainWallet(user.uuid))?.deployed).toBe(true);

    // Two calls: executeBatch, all in one operation.
    const batch = await call(
      server,
      '/v1/pin/verify',
      { ...proof, calls: [transfer(1n), transfer(2n)] },
      user.token,
    );
    expect(batch.status).toBe(200);
    expect(await tokenBalance(server, recipient)).toBe(before + 13n);
    expect(await tokenBalance(server, reg.address)).toBe(987n);

    // A call of the wallet to itself (it could changeOwner behind custody's back) is refused.
    const self = await call(server, '/v1/pin/verify', { ...proof, calls: [{ to: reg.address }] }, user.token);
    expect(self.status).toBe(400);
    expect(self.body).toMatchObject({ error: 'invalid_request', field: 'calls.0.to' });
  });

  it('locks the wallet after 5 wrong PINs in a row (423), counted per wallet even for concurrent guesses, doubling', async (ctx) => {
    if (!server) return ctx.skip();
    const user = await newUser(server);
    const reg = await registerPin(server, user, '246810');
    const right = { user_uuid: user.uuid, ...reg.pin, key_share_user: reg.key_share_user };
    const wrong = { ...right, ...pinOf('246811', reg.pin.pin_salt) };

    // Two wrong then a right one: the run is broken, the count starts over.
    for (const remaining of [4, 3]) {
      const res = await call(server, '/v1/pin/verify', wrong, user.token);
      expect(res).toEqual({
        status: 401,
        body: expect.objectContaining({
          success: false,
          error: 'invalid_pin',
          attempts_remaining: remaining,
        }),
      });
    }
    expect((await call(server, '/v1/pin/verify', right, user.token)).status).toBe(200);
    expect((await custodyRow(server, user.uuid))?.failed_attempts).toBe(0);

    // Twelve wrong guesses at once: at most five are evaluated, the rest are refused, and the wallet locks.
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 12 }, () => call(server, '/v1/pin/verify', wrong, user.token)),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(4);
    expect(statuses.filter((s) => s === 423).length).toBeGreaterThanOrEqual(8);
    expect(statuses.every((s) => s === 401 || s === 423)).toBe(true);
    const lockedRow = await custodyRow(server, user.uuid);
    expect(Number(lockedRow?.lock_count)).toBe(1);
    expect(Number(lockedRow?.locked_until)).toBeGreaterThanOrEqual(started + 15 * 60_000);
    expect(Number(lockedRow?.locked_until)).toBeLessThanOrEqual(Date.now() + 15 * 60_000);

    // Locked: even the right PIN is refused, and the answer says until when.
    const refused = await call<{ error: string; locked_until: string }>(
      server,
      '/v1/pin/verify',
      right,
      user.token,
    );
    expect(refused.status).toBe(423);
    expect(refused.body.error).toBe('pin_locked');
    expect(Date.parse(refused.body.locked_until)).toBe(Number(lockedRow?.locked_until));

    // Let the first lock end; five more wrong ones lock for 30 minutes.
    await server.services.database.db
      .updateTable('wallet_custody')
      .set({ locked_until: Date.now() - 1 })
      .where('user_uuid', '=', user.uuid)
      .execute();
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) codes.push((await call(server, '/v1/pin/verify', wrong, user.token)).status);
    expect(codes).toEqual([401, 401, 401, 401, 423]);
    const second = await custodyRow(server, user.uuid);
    expect(Number(second?.lock_count)).toBe(2);
    expect(Number(second?.locked_until) - Date.now()).toBeGreaterThan(29 * 60_000);
    expect(Number(second?.locked_until) - Date.now()).toBeLessThanOrEqual(30 * 60_000);
  });

  it('refuses another user’s login JWT on every PIN endpoint and an access token anywhere, changing nothing', async (ctx) => {
    if (!server) return ctx.skip();
    const victim = await newUser(server);
    const reg = await registerPin(server, victim, '135790');
    const attacker: TestUser = await newUser(server);
    const before = await custodyRow(server, victim.uuid);
    const mnemonic = decryptMnemonicForPin(reg.mnemonic, reg.pin.pin_hash);
    const bodies: [string, Record<string, unknown>][] = [
      ['/v1/pin/register', { user_uuid: victim.uuid, ...pinOf('000001') }],
      ['/v1/pin/verify', { user_uuid: victim.uuid, ...reg.pin, key_share_user: reg.key_share_user }],
      [
        '/v1/pin/reset',
        { user_uuid: victim.uuid, mnemonic, new_pin_hash: pinOf('1').pin_hash, new_pin_salt: 'a'.repeat(64) },
      ],
      ['/v1/pin/recover', { user_uuid: victim.uuid, ...pinOf('000002'), verification_token: 'x'.repeat(43) }],
    ];
    for (const [path, body] of bodies) {
      const res = await call(server, path, body, attacker.token);
      expect({ path, status: res.status, error: res.body.error }).toEqual({
        path,
        status: 403,
        error: 'user_mismatch',
      });
      const none = await call(server, path, body);
      expect({ path, status: none.status }).toEqual({ path, status: 401 });
    }
    // An OAuth access token of the victim is not a login JWT.
    const access = await server.services.tokens.issueAccessToken({
      userId: String(victim.uuid),
      clientId: 'some-client',
      grantId: 'some-grant',
    });
    const viaAccess = await call(server, '/v1/pin/verify', bodies[1]![1], access.token);
    expect(viaAccess.status).toBe(401);
    expect(await custodyRow(server, victim.uuid)).toEqual(before);
  });

  it('answers 400 naming the field for malformed input, and changes nothing', async (ctx) => {
    if (!server) return ctx.skip();
    const user = await newUser(server);
    const reg = await registerPin(server, user, '975310');
    const good = { user_uuid: user.uuid, ...reg.pin, key_share_user: reg.key_share_user };
    const before = await custodyRow(server, user.uuid);
    const cases: [string, Record<string, unknown>, string][] = [
      ['/v1/pin/verify', { ...good, pin_salt: reg.pin.pin_salt.slice(1) }, 'pin_salt'],
      ['/v1/pin/verify', { ...good, pin_salt: `${reg.pin.pin_salt.slice(1)}g` }, 'pin_salt'],
      ['/v1/pin/verify', { ...good, pin_hash: reg.pin.pin_hash.toUpperCase() }, 'pin_hash'],
      ['/v1/pin/verify', { ...good, pin_hash: reg.pin.pin_hash.slice(2) }, 'pin_hash'],
      ['/v1/pin/verify', { ...good, key_share_user: reg.key_share_user.slice(2) }, 'key_share_user'],
      ['/v1/pin/verify', { ...good, key_share_user: `0x${reg.key_share_user.slice(2)}` }, 'key_share_user'],
      // The decimal string login returns is accepted (issue 31); anything else that is not a uuid is not.
      ['/v1/pin/verify', { ...good, user_uuid: `${user.uuid}x` }, 'user_uuid'],
      ['/v1/pin/verify', { ...good, user_uuid: -1 }, 'user_uuid'],
      ['/v1/pin/verify', { ...good, calls: [{ to: '0x1234' }] }, 'calls.0.to'],
      ['/v1/pin/register', { user_uuid: user.uuid, pin_hash: reg.pin.pin_hash }, 'pin_salt'],
      [
        '/v1/pin/reset',
        {
          user_uuid: user.uuid,
          mnemonic: 'one two three',
          new_pin_hash: reg.pin.pin_hash,
          new_pin_salt: reg.pin.pin_salt,
        },
        'mnemonic',
      ],
      [
        '/v1/pin/reset',
        {
          user_uuid: user.uuid,
          mnemonic: `${'abandon '.repeat(11)}abandon`,
          new_pin_hash: reg.pin.pin_hash,
          new_pin_salt: reg.pin.pin_salt,
        },
        'mnemonic',
      ],
      ['/v1/pin/recover', { user_uuid: user.uuid, ...reg.pin }, 'verification_token'],
    ];
    for (const [path, body, field] of cases) {
      const res = await call(server, path, body, user.token);
      expect({ path, field, status: res.status, body: res.body }).toEqual({
        path,
        field,
        status: 400,
        body: expect.objectContaining({ success: false, field }),
      });
    }
    expect(await custodyRow(server, user.uuid)).toEqual(before);
  });

  it('resets the PIN with the mnemonic: new PIN and share work, old ones fail, same owner, no transaction', async (ctx) => {
    if (!server) return ctx.skip();
    const user = await newUser(server);
    const reg = await registerPin(server, user, '112233');
    const proof = { user_uuid: user.uuid, ...reg.pin, key_share_user: reg.key_share_user };
    // Deploy the wallet first, so the on-chain owner and nonce are there to compare.
    await server.services.chain.faucet.fund({ address: reg.address, token: 5n });
    const token = server.services.chain.info.contracts.token;
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [reg.address, 0n] });
    expect(
      (await call(server, '/v1/pin/verify', { ...proof, calls: [{ to: token, data }] }, user.token)).status,
    ).toBe(200);
    // And lock it: a reset by mnemonic also ends a lockout.
    const wrong = { ...proof, ...pinOf('000000', reg.pin.pin_salt) };
    for (let i = 0; i < 5; i++) await call(server, '/v1/pin/verify', wrong, user.token);
    expect((await call(server, '/v1/pin/verify', proof, user.token)).status).toBe(423);

    const client = chainClient(server);
    const entryPoint = server.services.chain.info.contracts.entry_point;
    const ownerBefore = await client.readContract({
      address: reg.address,
      abi: dauthAccountAbi,
      functionName: 'owner',
    });
    const blockBefore = await client.getBlockNumber({ cacheTime: 0 });
    const nonceBefore = await server.services.chain.gateway.getNonce(reg.address);
    const mnemonic = decryptMnemonicForPin(reg.mnemonic, reg.pin.pin_hash);
    const rowBefore = await custodyRow(server, user.uuid);

    // A wrong (but well-formed) mnemonic is refused and changes nothing.
    const other = mnemonicToAccount(`${'abandon '.repeat(11)}about`);
    expect(other.address).not.toBe(ownerBefore);
    const bad = await call(
      server,
      '/v1/pin/reset',
      { user_uuid: user.uuid, mnemonic: `${'abandon '.repeat(11)}about`, ...renamed(pinOf('999999')) },
      user.token,
    );
    expect(bad.status).toBe(401);
    expect(bad.body.error).toBe('invalid_mnemonic');
    expect(await custodyRow(server, user.uuid)).toEqual(rowBefore);

    const newPin = pinOf('445566');
    const reset = await call<{ success: boolean; address: Address; key_share_user: string }>(
      server,
      '/v1/pin/reset',
      { user_uuid: user.uuid, mnemonic: `  ${mnemonic.toUpperCase()} `, ...renamed(newPin) },
      user.token,
    );
    expect(reset.status).toBe(200);
    expect(reset.body.address).toBe(reg.address);
    expect(reset.body.key_share_user).toMatch(/^[0-9a-f]{64}$/);
    expect(reset.body.key_share_user).not.toBe(reg.key_share_user);

    const fresh = { user_uuid: user.uuid, ...newPin, key_share_user: reset.body.key_share_user };
    expect(await call(server, '/v1/pin/verify', fresh, user.token)).toEqual({
      status: 200,
      body: { success: true, address: reg.address },
    });
    // The old share fails with the old PIN and with the new one.
    expect((await call(server, '/v1/pin/verify', proof, user.token)).body.error).toBe('invalid_pin');
    expect(
      (await call(server, '/v1/pin/verify', { ...fresh, key_share_user: reg.key_share_user }, user.token))
        .body.error,
    ).toBe('invalid_pin');

    // Same owner on chain and on record, same wallet, and nothing was sent to the chain.
    expect(
      await client.readContract({ address: reg.address, abi: dauthAccountAbi, functionName: 'owner' }),
    ).toBe(ownerBefore);
    expect((await server.services.custody.custodyOf(user.uuid))?.owner).toBe(ownerBefore);
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(blockBefore);
    expect(await server.services.chain.gateway.getNonce(reg.address)).toBe(nonceBefore);
    expect(entryPoint).toMatch(/^0x/);

    // The new share signs real operations.
    const op = await call(server, '/v1/pin/verify', { ...fresh, calls: [{ to: token, data }] }, user.token);
    expect(op.status).toBe(200);
    expect(await server.services.chain.gateway.getNonce(reg.address)).toBe(nonceBefore + 1n);
  });
});

/** reset takes the new PIN as new_pin_hash / new_pin_salt. */
function renamed(pin: { pin_hash: string; pin_salt: string }) {
  return { new_pin_hash: pin.pin_hash, new_pin_salt: pin.pin_salt };
}
