import { dauthContentTokenAbi, dauthDexAbi, dauthPaymasterAbi } from '@dauth/contracts';
import { encodeFunctionData, getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call, newUser, registerPin, type RegisteredPin, type TestUser } from '../pin/pinHelpers.js';
import { newApp, request } from '../sessionKeys/support.js';

const sink = getAddress(`0x${'5'.repeat(40)}`);

/**
 * The gas sponsorship policy (decisions §7) on a real dauth and chain: never-sponsored targets, the
 * per-operation cap and the daily budgets are enforced before anything is signed or sent.
 */
describe('gas sponsorship policy', () => {
  let server: TestServer;
  let user: TestUser;
  let wallet: RegisteredPin;

  beforeAll(async () => {
    // Room for a few operations per user and day, no more.
    server = await startTestServer({ env: { SPONSOR_USER_DAILY_GAS: '1500000' } });
    user = await newUser(server, 'sponsor');
    wallet = await registerPin(server, user, '424242');
    await server.services.chain.faucet.fund({ address: wallet.address, token: 1_000n });
  });
  afterAll(() => server?.close());

  const verify = (calls: { to: string; data?: string; value?: string }[]) =>
    call<Record<string, unknown>>(
      server,
      '/v1/pin/verify',
      { user_uuid: user.uuid, ...wallet.pin, key_share_user: wallet.key_share_user, calls },
      user.token,
    );
  const nonce = () => server.services.chain.gateway.getNonce(wallet.address);
  const transfer = (amount: bigint) => ({
    to: server.services.chain.info.contracts.token,
    data: encodeFunctionData({
      abi: [
        {
          type: 'function',
          name: 'transfer',
          stateMutability: 'nonpayable',
          inputs: [
            { name: 'to', type: 'address' },
            { name: 'amount', type: 'uint256' },
          ],
          outputs: [{ type: 'bool' }],
        },
      ] as const,
      functionName: 'transfer',
      args: [sink, amount],
    }),
  });

  it('never sponsors calls to the paymaster, the entry point or admin functions of platform contracts', async () => {
    const { paymaster, entry_point: entryPoint, dex } = server.services.chain.info.contracts;
    const before = await nonce();
    const attempts = [
      {
        to: paymaster,
        data: encodeFunctionData({ abi: dauthPaymasterAbi, functionName: 'withdrawTo', args: [sink, 1n] }),
      },
      {
        to: paymaster,
        data: encodeFunctionData({
          abi: dauthPaymasterAbi,
          functionName: 'setVerifyingSigner',
          args: [sink],
        }),
      },
      { to: entryPoint, data: '0x' },
      { to: dex, data: encodeFunctionData({ abi: dauthDexAbi, functionName: 'setOperator', args: [sink] }) },
      {
        to: dex,
        data: encodeFunctionData({ abi: dauthDexAbi, functionName: 'init_self', args: [sink, 1n, sink] }),
      },
    ];
    for (const attempt of attempts) {
      const refused = await verify([transfer(1n), attempt]);
      expect(refused.status, attempt.data.slice(0, 10)).toBe(403);
      expect(refused.body).toMatchObject({ success: false, error: 'sponsorship_refused' });
    }
    expect(await nonce()).toBe(before);
    const rows = await server.services.sponsorship.spendOn(new Date().toISOString().slice(0, 10));
    expect(rows.filter((r) => r.subject === String(user.uuid))).toEqual([]);
  });

  it('never sponsors the content token’s settlement or terms changes for anyone but the operator', async () => {
    const contentToken = server.services.chain.info.contracts.content_token;
    const before = await nonce();
    const attempts = [
      encodeFunctionData({ abi: dauthContentTokenAbi, functionName: 'settle', args: ['game', [sink]] }),
      encodeFunctionData({
        abi: dauthContentTokenAbi,
        functionName: 'amendTerms',
        args: ['game', 100, sink, [sink]],
      }),
    ];
    for (const data of attempts) {
      const refused = await verify([transfer(1n), { to: contentToken, data }]);
      expect(refused.status, data.slice(0, 10)).toBe(403);
      expect(refused.body).toMatchObject({ success: false, error: 'sponsorship_refused' });
    }
    expect(await nonce()).toBe(before);
    const rows = await server.services.sponsorship.spendOn(new Date().toISOString().slice(0, 10));
    expect(rows.filter((r) => r.subject === String(user.uuid))).toEqual([]);
  });

  it('refuses an account over its daily budget with 429, before anything is signed, and reports the spend', async () => {
    let served = 0;
    let refused: Awaited<ReturnType<typeof verify>> | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      const res = await verify([transfer(1n)]);
      if (res.status === 200) served++;
      else refused = res;
    }
    expect(served).toBeGreaterThan(0);
    expect(refused?.status).toBe(429);
    expect(refused?.body).toMatchObject({ success: false, error: 'sponsorship_quota_exceeded' });
    const nonceAfter = await nonce();
    expect(nonceAfter).toBe(BigInt(served));
    expect((await verify([transfer(1n)])).status).toBe(429);
    expect(await nonce()).toBe(nonceAfter);

    expect((await fetch(`${server.url}/v1/admin/sponsorship`)).status).toBe(401);
    const report = (await (
      await fetch(`${server.url}/v1/admin/sponsorship`, {
        headers: { authorization: `Bearer ${server.services.secrets.adminApiKey}` },
      })
    ).json()) as {
      users: { user_id: string; gas: number; operations: number }[];
      limits: { user_daily_gas: number };
    };
    const mine = report.users.find((u) => u.user_id === String(user.uuid));
    expect(mine?.operations).toBe(served);
    expect(mine!.gas).toBeLessThanOrEqual(report.limits.user_daily_gas);
    expect(mine!.gas).toBeGreaterThan(0);
  });
});

describe('gas sponsorship policy: per-operation cap', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { SPONSOR_MAX_OPERATION_GAS: '250000' } });
  });
  afterAll(() => server?.close());

  it('refuses an operation asking for more gas than the cap (a first operation deploys the wallet)', async () => {
    const user = await newUser(server, 'cap');
    const wallet = await registerPin(server, user, '515151');
    const res = await call(
      server,
      '/v1/pin/verify',
      {
        user_uuid: user.uuid,
        ...wallet.pin,
        key_share_user: wallet.key_share_user,
        calls: [{ to: sink, value: '0' }],
      },
      user.token,
    );
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ error: 'sponsorship_quota_exceeded', limit: 'operation_gas' });
    expect(await server.services.chain.gateway.isDeployed(wallet.address)).toBe(false);
  });

  it('refuses at PUT a wallet policy whose grant would ask more than the cap (here: any, a grant of one entry asks ~325,000)', async () => {
    const { dev, client } = await newApp(server);
    const res = await request(
      server,
      'PUT',
      `/v1/dev-user/clients/${client.clientId}/wallet-policy`,
      dev.loginToken,
      {
        calls: [{ to: sink, selectors: ['0x12345678'] }],
        max_value_per_call_wei: '0',
        max_value_per_day_wei: '0',
        token_limits: [],
        valid_for_seconds: 3600,
      },
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: 'invalid_wallet_policy',
      message: expect.stringMatching(/SPONSOR_MAX_OPERATION_GAS\) lets a grant store at most 0$/) as string,
      field: 'calls',
      details: { field: 'calls' },
    });
  });
});
