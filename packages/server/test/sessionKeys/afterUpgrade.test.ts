/**
 * Owner flows of a wallet handed to its session account (docs/session-keys.md): PIN recovery rotates the owner
 * key of the session account (the wallet stays owned by it), the new PIN works for owner operations and the
 * app's key keeps working; a password reset ends the app grants and with them, in the background, the key on
 * chain. Also: a wallet whose `changeOwner` landed while the intent row stayed pending (a crash) is completed
 * by its next owner operation.
 */
import { dauthAccountAbi, dauthSessionAccountAbi } from '@dauth/contracts';
import { type Address, getAddress } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptMnemonicForPin } from '../../src/crypto/keyShares.js';
import { post, type TestClient } from '../helpers/http.js';
import { waitForMail } from '../helpers/outbox.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { chainClient, pinOf, verificationToken } from '../pin/pinHelpers.js';
import {
  DAY,
  grant,
  newApp,
  newPlayer,
  type Player,
  request,
  sessionState,
  tokenBalanceOf,
  tokenTransferPolicy,
  transferData,
} from './support.js';

const recipient = getAddress(`0x${'ab'.repeat(20)}`);

describe('owner flows after the upgrade', () => {
  let server: TestServer;
  let clientId: string;
  let app: TestClient;
  let token: Address;
  const ownerOf = (address: Address) =>
    chainClient(server).readContract({
      address,
      abi: dauthAccountAbi,
      functionName: 'owner',
    }) as Promise<Address>;
  const accountOwner = (address: Address) =>
    chainClient(server).readContract({ address, abi: dauthSessionAccountAbi, functionName: 'owner' });
  const sessionOp = (p: Player, amount: bigint) =>
    request(server, 'POST', '/v1/wallet/session-operations', p.accessToken, {
      calls: [{ to: token, data: transferData(recipient, amount) }],
    });

  beforeAll(async () => {
    server = await startTestServer();
    token = server.services.chainInfo.contracts.token;
    const { dev, client } = await newApp(server);
    clientId = client.clientId;
    const put = await request(
      server,
      'PUT',
      `/v1/dev-user/clients/${clientId}/wallet-policy`,
      dev.loginToken,
      tokenTransferPolicy(token, '1000'),
    );
    expect(put.status).toBe(200);
    app = client;
  }, 120_000);
  afterAll(() => server?.close());

  const player = () => newPlayer(server, app);

  it('PIN recovery rotates the session account’s owner; the new PIN and the app’s key both work', async () => {
    const p = await player();
    expect((await grant(server, p, clientId)).status).toBe(201);
    const account = await ownerOf(p.wallet.address);
    const oldOwner = await accountOwner(account);

    const user = { uuid: Number(p.user.uuid), email: p.user.email, token: p.user.loginToken };
    const newPin = pinOf('271828');
    const recovered = await request(server, 'POST', '/v1/pin/recover', p.user.loginToken, {
      user_uuid: user.uuid,
      ...newPin,
      verification_token: await verificationToken(server, user),
    });
    expect(recovered.status, JSON.stringify(recovered.body)).toBe(200);
    const newOwner = mnemonicToAccount(
      decryptMnemonicForPin(recovered.body.mnemonic_enc, newPin.pin_hash),
    ).address;
    expect(newOwner).not.toBe(oldOwner);
    // The wallet is still the session account's; the session account's owner is the new key.
    expect(await ownerOf(p.wallet.address)).toBe(account);
    expect(await accountOwner(account)).toBe(newOwner);

    const before = await tokenBalanceOf(server, p.wallet.address);
    const owner = await request(server, 'POST', '/v1/token/transfer', p.user.loginToken, {
      from_address: p.wallet.address,
      to_address: recipient,
      amount: '3',
      contract_address: token,
      ...newPin,
      key_share_user: recovered.body.key_share_user,
    });
    expect(owner.status, JSON.stringify(owner.body)).toBe(200);
    expect((await sessionOp(p, 4n)).status).toBe(200);
    expect(await tokenBalanceOf(server, p.wallet.address)).toBe(before - 7n);
  });

  it('a password reset ends the app grant and, in the background, the session key on chain', async () => {
    const p = await player();
    const granted = await grant(server, p, clientId);
    expect(granted.status).toBe(201);
    const key = granted.body.session_key as Address;
    const account = await ownerOf(p.wallet.address);
    expect((await sessionState(server, account, key)).active).toBe(true);

    expect(
      (await post(`${server.url}/v1/dev-user/password/reset-request`, { email: p.user.email })).status,
    ).toBe(200);
    const code = await resetCode(server, p.user.email);
    const reset = await post(`${server.url}/v1/dev-user/password/reset`, {
      email: p.user.email,
      code,
      new_password: 'a brand new passphrase',
    });
    expect(reset.status).toBe(200);
    // Off chain at once: the access token died with the grant.
    expect((await sessionOp(p, 1n)).status).toBe(401);
    const deadline = Date.now() + 30_000;
    while ((await sessionState(server, account, key)).active && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
    }
    expect((await sessionState(server, account, key)).active).toBe(false);
  });

  it('native value caps per call and per day: 403 with nothing signed, the contract’s day counter read back', async () => {
    const { dev, client } = await newApp(server, 'Tipping game');
    const put = await request(
      server,
      'PUT',
      `/v1/dev-user/clients/${client.clientId}/wallet-policy`,
      dev.loginToken,
      {
        calls: [{ to: recipient, selectors: ['0x00000000'] }],
        max_value_per_call_wei: '1000000000000000',
        max_value_per_day_wei: '2000000000000000',
        token_limits: [],
        valid_for_seconds: DAY,
      },
    );
    expect(put.status).toBe(200);
    const p = await newPlayer(server, client);
    await server.services.chain.faucet.fund({ address: p.wallet.address, native: 10n ** 17n });
    expect((await grant(server, p, client.clientId)).status).toBe(201);
    const tip = (value: string) =>
      request(server, 'POST', '/v1/wallet/session-operations', p.accessToken, {
        calls: [{ to: recipient, value }],
      });
    const balance = () => chainClient(server).getBalance({ address: recipient });
    const before = await balance();
    expect((await tip('1000000000000000')).status).toBe(200);
    expect((await tip('2000000000000000')).body).toMatchObject({
      error: 'outside_session_policy',
      details: { call_index: 0, reason: 'value_per_call' },
    });
    expect((await tip('600000000000000')).status).toBe(200);
    expect((await tip('500000000000000')).body).toMatchObject({
      details: { call_index: 0, reason: 'value_per_day' },
    });
    expect(await balance()).toBe(before + 1_600_000_000_000_000n);
    const list = await request(server, 'GET', '/v1/wallet/session-keys', p.user.loginToken);
    expect(list.body.session_keys[0].spent_today).toEqual({ value_wei: '1600000000000000', tokens: [] });
  });

  it('a second grant for the same app replaces the first: the old key is revoked on chain in the same operation', async () => {
    const p = await player();
    const first = await grant(server, p, clientId);
    expect(first.status).toBe(201);
    const second = await grant(server, p, clientId);
    expect(second.status).toBe(201);
    expect(second.body.session_key).not.toBe(first.body.session_key);
    const account = await ownerOf(p.wallet.address);
    expect((await sessionState(server, account, first.body.session_key as Address)).active).toBe(false);
    expect((await sessionState(server, account, second.body.session_key as Address)).active).toBe(true);
    const list = await request(server, 'GET', '/v1/wallet/session-keys', p.user.loginToken);
    expect(list.body.session_keys.map((k: { session_key: string }) => k.session_key)).toEqual([
      second.body.session_key,
    ]);
    expect((await sessionOp(p, 1n)).status).toBe(200);
  });

  it('a batch of 16 capped token transfers fits the validation gas of a session operation', async () => {
    const p = await player();
    expect((await grant(server, p, clientId)).status).toBe(201);
    const before = await tokenBalanceOf(server, p.wallet.address);
    const res = await request(server, 'POST', '/v1/wallet/session-operations', p.accessToken, {
      calls: Array.from({ length: 16 }, (_, i) => ({
        to: token,
        data: transferData(getAddress(`0x${(i + 1).toString(16).padStart(40, '0')}`), 10n),
      })),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await tokenBalanceOf(server, p.wallet.address)).toBe(before - 160n);
  });

  it('deleting the app revokes its players’ session keys on chain in the background', async () => {
    const { dev, client } = await newApp(server, 'Short-lived game');
    const put = await request(
      server,
      'PUT',
      `/v1/dev-user/clients/${client.clientId}/wallet-policy`,
      dev.loginToken,
      tokenTransferPolicy(token, '10'),
    );
    expect(put.status).toBe(200);
    const p = await newPlayer(server, client);
    const granted = await grant(server, p, client.clientId);
    expect(granted.status).toBe(201);
    const account = await ownerOf(p.wallet.address);
    const key = granted.body.session_key as Address;
    expect(
      (await request(server, 'DELETE', `/v1/dev-user/clients/${client.clientId}`, dev.loginToken)).status,
    ).toBe(200);
    const deadline = Date.now() + 30_000;
    while ((await sessionState(server, account, key)).active && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
    }
    expect((await sessionState(server, account, key)).active).toBe(false);
  });

  it('a grant needs the app, its wallet policy and the player’s approval of the app; nothing is sent without them', async () => {
    const p = await player();
    const unapproved = await newApp(server, 'Unapproved game');
    expect(
      (await grant(server, p, unapproved.client.clientId)).body, // no policy yet
    ).toMatchObject({ error: 'wallet_policy_not_found' });
    const put = await request(
      server,
      'PUT',
      `/v1/dev-user/clients/${unapproved.client.clientId}/wallet-policy`,
      unapproved.dev.loginToken,
      tokenTransferPolicy(token, '10'),
    );
    expect(put.status).toBe(200);
    const refused = await grant(server, p, unapproved.client.clientId);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('app_not_approved');
    expect((await grant(server, p, 'no-such-app')).body).toMatchObject({ error: 'client_not_found' });
    // Nothing happened to the wallet: still owned by the player's key directly, no session account recorded.
    const row = await server.services.database.db
      .selectFrom('session_accounts')
      .select('state')
      .where('wallet_address', '=', p.wallet.address.toLowerCase())
      .executeTakeFirst();
    expect(row).toBeUndefined();
  });

  it('sponsorship budgets apply: a session operation is charged to the player’s daily gas budget', async () => {
    const p = await player();
    expect((await grant(server, p, clientId)).status).toBe(201);
    expect((await sessionOp(p, 1n)).status).toBe(200);
    // The player's day is spent (by anything): the app's session operation is refused like any other.
    const day = new Date().toISOString().slice(0, 10);
    await server.services.sponsorship.chargeAll(day, 60_000_000, [
      { scope: 'user', subject: p.user.uuid, budget: 1e12 },
    ]);
    const refused = await sessionOp(p, 1n);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('sponsorship_quota_exceeded');
  });

  it('the app’s daily sponsorship budget is charged by its session operations (not by the player’s own)', async () => {
    const p = await player();
    expect((await grant(server, p, clientId)).status).toBe(201);
    const day = new Date().toISOString().slice(0, 10);
    await server.services.sponsorship.chargeAll(day, 1e12, [
      { scope: 'app', subject: clientId, budget: 1e13 },
    ]);
    const refused = await sessionOp(p, 1n);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'sponsorship_quota_exceeded', limit: 'daily_budget' });
    // The player's own PIN operation is not the app's: it goes through.
    const owner = await request(server, 'POST', '/v1/token/transfer', p.user.loginToken, {
      from_address: p.wallet.address,
      to_address: recipient,
      amount: '1',
      contract_address: token,
      ...p.wallet.pin,
      key_share_user: p.wallet.key_share_user,
    });
    expect(owner.status, JSON.stringify(owner.body)).toBe(200);
  });

  it('a changeOwner that landed while its intent row stayed pending is completed by the next owner operation', async () => {
    const p = await player();
    // What a crash right after the wallet's changeOwner (before the row was marked active) leaves behind.
    const granted = await grant(server, p, clientId);
    expect(granted.status).toBe(201);
    const account = await ownerOf(p.wallet.address);
    // Simulate the lost bookkeeping: mark the row pending again, as if the crash came before activateAccount.
    await server.services.database.db
      .updateTable('session_accounts')
      .set({ state: 'pending' })
      .where('wallet_address', '=', p.wallet.address.toLowerCase())
      .execute();
    const owner = await request(server, 'POST', '/v1/token/transfer', p.user.loginToken, {
      from_address: p.wallet.address,
      to_address: recipient,
      amount: '1',
      contract_address: token,
      ...p.wallet.pin,
      key_share_user: p.wallet.key_share_user,
    });
    expect(owner.status, JSON.stringify(owner.body)).toBe(200);
    const row = await server.services.database.db
      .selectFrom('session_accounts')
      .select(['state', 'account_address'])
      .where('wallet_address', '=', p.wallet.address.toLowerCase())
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ state: 'active', account_address: account.toLowerCase() });
  });
});

async function resetCode(server: TestServer, email: string): Promise<string> {
  const { text } = await waitForMail(server.dataDir, email, { includes: 'reset code' });
  return /reset code is (\d{8})/.exec(text)![1]!;
}
