import { type Address, getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  call,
  newUser,
  pinOf,
  registerPin,
  type RegisteredPin,
  type TestUser,
  tokenBalance,
} from '../pin/pinHelpers.js';

describe.each([{ postgres: false }, { postgres: true }])('ERC-20 transfer (postgres: $postgres)', (opts) => {
  let server: TestServer;
  let owner: TestUser;
  let wallet: RegisteredPin;
  let token: Address;
  const recipient = getAddress(`0x${'ab'.repeat(20)}`);

  beforeAll(async () => {
    const { postgresAvailable } = await import('../helpers/environment.js');
    if (opts.postgres && !postgresAvailable) return;
    server = await startTestServer(opts);
    token = server.services.chain.info.contracts.token;
    owner = await newUser(server, 'transfer');
    wallet = await registerPin(server, owner, '808080');
    // Fund through the admin faucet, as an operator would.
    const funded = await call(
      server,
      '/v1/admin/faucet',
      { address: wallet.address, token: '1000000' },
      server.services.secrets.adminApiKey,
    );
    expect(funded.status).toBe(200);
  });
  afterAll(() => server?.close());

  const body = (overrides: Record<string, unknown> = {}) => ({
    from_address: wallet.address,
    to_address: recipient,
    amount: '1500',
    contract_address: token,
    ...wallet.pin,
    key_share_user: wallet.key_share_user,
    ...overrides,
  });

  it('moves real ERC-20 balances from the caller’s wallet with a login JWT or an access token', async (ctx) => {
    if (!server) return ctx.skip();
    const before = {
      from: await tokenBalance(server, wallet.address),
      to: await tokenBalance(server, recipient),
    };
    const res = await call<Record<string, string>>(server, '/v1/token/transfer', body(), owner.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      transaction_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      user_op_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      from_address: wallet.address,
      to_address: recipient,
      amount: '1500',
      contract_address: getAddress(token),
    });
    expect(await tokenBalance(server, wallet.address)).toBe(before.from - 1500n);
    expect(await tokenBalance(server, recipient)).toBe(before.to + 1500n);

    // An OAuth access token of the same user works too; lowercase addresses are accepted.
    const access = await server.services.tokens.issueAccessToken({
      userId: String(owner.uuid),
      clientId: 'a-game',
      grantId: 'grant-1',
    });
    const viaAccess = await call(
      server,
      '/v1/token/transfer',
      body({
        amount: '0025',
        from_address: wallet.address.toLowerCase(),
        to_address: recipient.toLowerCase(),
      }),
      access.token,
    );
    expect(viaAccess.status).toBe(200);
    expect(viaAccess.body).toMatchObject({
      amount: '25',
      from_address: wallet.address,
      to_address: recipient,
    });
    expect(await tokenBalance(server, recipient)).toBe(before.to + 1525n);
  });

  it('refuses without the PIN trio (401 pin_required), with a wrong PIN, from another user’s wallet, and bad input, changing nothing', async (ctx) => {
    if (!server) return ctx.skip();
    const before = {
      from: await tokenBalance(server, wallet.address),
      to: await tokenBalance(server, recipient),
    };
    const nonce = await server.services.chain.gateway.getNonce(wallet.address);
    const { pin_hash: _h, pin_salt: _s, key_share_user: _k, ...bare } = body();

    const noPin = await call(server, '/v1/token/transfer', bare, owner.token);
    expect(noPin.status).toBe(401);
    expect(noPin.body.error).toBe('pin_required');
    const partial = await call(
      server,
      '/v1/token/transfer',
      { ...bare, pin_hash: wallet.pin.pin_hash },
      owner.token,
    );
    expect(partial.status).toBe(401);
    expect(partial.body.error).toBe('pin_required');

    const wrongPin = await call(
      server,
      '/v1/token/transfer',
      body(pinOf('808081', wallet.pin.pin_salt)),
      owner.token,
    );
    expect(wrongPin.status).toBe(401);
    expect(wrongPin.body.error).toBe('invalid_pin');

    // Another user (with a wallet and PIN of their own) cannot move this wallet's tokens.
    const thief = await newUser(server, 'thief');
    const thiefWallet = await registerPin(server, thief, '121212');
    const stolen = await call(
      server,
      '/v1/token/transfer',
      body({ ...thiefWallet.pin, key_share_user: thiefWallet.key_share_user }),
      thief.token,
    );
    expect(stolen.status).toBe(403);
    expect(stolen.body.error).toBe('not_your_wallet');
    const unknown = await call(server, '/v1/token/transfer', body({ from_address: recipient }), owner.token);
    expect(unknown.status).toBe(403);

    const cases: [Record<string, unknown>, string][] = [
      [{ amount: '0' }, 'amount'],
      [{ amount: '-5' }, 'amount'],
      [{ amount: 5 }, 'amount'],
      [{ amount: '1e3' }, 'amount'],
      [{ to_address: '0x1234' }, 'to_address'],
      // The recipient with the case of one letter flipped: a broken EIP-55 checksum.
      [{ to_address: flipCase(recipient) }, 'to_address'],
      [{ contract_address: recipient }, 'contract_address'],
      [{ pin_salt: 'zz' }, 'pin_salt'],
      [{ key_share_user: 'ab' }, 'key_share_user'],
    ];
    for (const [overrides, field] of cases) {
      const res = await call(server, '/v1/token/transfer', body(overrides), owner.token);
      if (res.status === 200) throw new Error(`accepted ${JSON.stringify(overrides)}`);
      expect({ field, status: res.status, got: res.body.field }).toEqual({ field, status: 400, got: field });
    }

    // More than the balance: refused before anything is sent.
    const tooMuch = await call(
      server,
      '/v1/token/transfer',
      body({ amount: String(before.from + 1n) }),
      owner.token,
    );
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.error).toBe('operation_reverted');

    expect(await tokenBalance(server, wallet.address)).toBe(before.from);
    expect(await tokenBalance(server, recipient)).toBe(before.to);
    expect(await server.services.chain.gateway.getNonce(wallet.address)).toBe(nonce);
    expect((await call(server, '/v1/token/transfer', body())).status).toBe(401);
  });
});

/** Flips the case of the first letter of the hex part that has one. */
function flipCase(address: string): string {
  const i = address.slice(2).search(/[a-fA-F]/) + 2;
  const c = address[i]!;
  return (
    address.slice(0, i) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + address.slice(i + 1)
  );
}
