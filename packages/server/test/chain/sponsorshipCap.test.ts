import { encodeFunctionData, erc20Abi, getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  call,
  chainClient,
  latestMailTo,
  newUser,
  registerPin,
  type RegisteredPin,
  type TestUser,
} from '../pin/pinHelpers.js';

const sink = getAddress(`0x${'6'.repeat(40)}`);
const today = () => new Date().toISOString().slice(0, 10);

/** A sponsored one-call operation of `user`'s wallet: 1 wei of the platform token to `sink`. */
function transferOne(server: TestServer, user: TestUser, wallet: RegisteredPin) {
  return call<Record<string, unknown>>(
    server,
    '/v1/pin/verify',
    {
      user_uuid: user.uuid,
      ...wallet.pin,
      key_share_user: wallet.key_share_user,
      calls: [
        {
          to: server.services.chain.info.contracts.token,
          data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [sink, 1n] }),
        },
      ],
    },
    user.token,
  );
}

async function fundedWallet(server: TestServer, label: string, pin: string) {
  const user = await newUser(server, label);
  const wallet = await registerPin(server, user, pin);
  await server.services.chain.faucet.fund({ address: wallet.address, token: 1_000n });
  return { user, wallet };
}

const admin = (server: TestServer) => ({
  authorization: `Bearer ${server.services.secrets.adminApiKey}`,
});

/**
 * Decisions §8, the platform-wide daily sponsorship cap on a real dauth and chain: once every user and
 * app together reached SPONSOR_PLATFORM_DAILY_GAS, operations are refused (429) before anything is
 * signed or sent, `/readyz` is degraded and the metrics say so.
 */
describe('platform-wide daily sponsorship cap', () => {
  let server: TestServer;

  beforeAll(async () => {
    // Room for a couple of operations in the whole platform; each user's own budget is far larger.
    server = await startTestServer({ env: { SPONSOR_PLATFORM_DAILY_GAS: '1500000' } });
  });
  afterAll(() => server?.close());

  it('refuses every account once the cap is reached: 429, nothing signed or sent, readyz degraded, metric set', async () => {
    const first = await fundedWallet(server, 'cap-a', '111222');
    const second = await fundedWallet(server, 'cap-b', '333444');

    const ready = (await (await fetch(`${server.url}/readyz`, { headers: admin(server) })).json()) as {
      status: string;
      checks: Record<string, string>;
    };
    expect(ready.checks.sponsorship).toMatch(/^\d+ of 1500000 gas sponsored today \(UTC\)$/);

    let served = 0;
    let refused: Awaited<ReturnType<typeof transferOne>> | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      const res = await transferOne(server, first.user, first.wallet);
      if (res.status === 200) served++;
      else refused = res;
    }
    expect(served).toBeGreaterThan(0);
    expect(refused?.status).toBe(429);
    expect(refused?.body).toMatchObject({
      success: false,
      error: 'sponsorship_quota_exceeded',
      limit: 'platform_daily_budget',
    });

    // The other account, far within its own budget, is refused too, and nothing is signed or sent.
    const relayer = server.services.chain.telemetry.relayerAddress;
    const client = chainClient(server);
    const relayerNonce = await client.getTransactionCount({ address: relayer, blockTag: 'pending' });
    const firstNonce = await server.services.chain.gateway.getNonce(first.wallet.address);
    expect(firstNonce).toBe(BigInt(served));
    for (const { user, wallet } of [second, first]) {
      const res = await transferOne(server, user, wallet);
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ error: 'sponsorship_quota_exceeded', limit: 'platform_daily_budget' });
    }
    expect(await server.services.chain.gateway.isDeployed(second.wallet.address)).toBe(false);
    expect(await server.services.chain.gateway.getNonce(first.wallet.address)).toBe(firstNonce);
    expect(await client.getTransactionCount({ address: relayer, blockTag: 'pending' })).toBe(relayerNonce);
    expect(await server.services.chain.gateway.tokenBalance(second.wallet.address)).toBe(1_000n);

    // The charged total never passes the cap; the refusals are counted in the database (every replica).
    const platform = await server.services.sponsorshipReport.platformOn(today());
    expect(platform.gas).toBeLessThanOrEqual(1_500_000);
    expect(platform.operations).toBe(served);
    expect(platform.refused).toBe(3);
    expect(platform.reached).toBe(true);

    const degraded = await fetch(`${server.url}/readyz`, { headers: admin(server) });
    expect(degraded.status).toBe(200);
    const body = (await degraded.json()) as { status: string; checks: Record<string, string> };
    expect(body.status).toBe('degraded');
    expect(body.checks.sponsorship).toMatch(
      /^platform sponsorship cap reached: \d+ of 1500000 gas sponsored today \(UTC\); 3 operations refused$/,
    );

    const metrics = await (await fetch(`${server.url}/metrics`, { headers: admin(server) })).text();
    expect(metrics).toMatch(/^dauth_sponsorship_platform_cap_reached 1$/m);
    expect(metrics).toContain(`dauth_sponsorship_platform_gas ${platform.gas}`);
    expect(metrics).toMatch(/^dauth_sponsorship_refused_total\{limit="platform_daily_budget"\} 3$/m);

    const report = (await (
      await fetch(`${server.url}/v1/admin/sponsorship`, { headers: admin(server) })
    ).json()) as { platform: Record<string, unknown>; limits: Record<string, number> };
    expect(report.platform).toEqual({
      gas: platform.gas,
      operations: served,
      refused: 3,
      cap_reached: true,
    });
    expect(report.limits).toMatchObject({
      platform_daily_gas: 1_500_000,
      unverified_user_daily_gas: 10_000_000,
    });
  });
});

/**
 * Decisions §8: an account whose e-mail address is unverified is sponsored up to
 * SPONSOR_UNVERIFIED_USER_DAILY_GAS a day; once the address is verified the regular budget applies to
 * the same day's spend, so the refused operation goes through.
 */
describe('sponsorship of unverified accounts', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ env: { SPONSOR_UNVERIFIED_USER_DAILY_GAS: '1500000' } });
  });
  afterAll(() => server?.close());

  it('refuses an unverified account past its budget (429, nothing sent); after verifying the address the same operation goes through', async () => {
    const { user, wallet } = await fundedWallet(server, 'unverified', '555666');
    let served = 0;
    let refused: Awaited<ReturnType<typeof transferOne>> | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      const res = await transferOne(server, user, wallet);
      if (res.status === 200) served++;
      else refused = res;
    }
    expect(served).toBeGreaterThan(0);
    expect(refused?.status).toBe(429);
    expect(refused?.body).toMatchObject({
      success: false,
      error: 'sponsorship_quota_exceeded',
      limit: 'unverified_daily_budget',
    });
    expect(String(refused?.body.message)).toMatch(/verify the address/);
    const nonce = await server.services.chain.gateway.getNonce(wallet.address);
    expect(nonce).toBe(BigInt(served));
    expect((await transferOne(server, user, wallet)).status).toBe(429);
    expect(await server.services.chain.gateway.getNonce(wallet.address)).toBe(nonce);

    // The user verifies the address with the code from the sign-up mail.
    const { text } = await latestMailTo(server, user.email);
    const code = /enter the code (\d{6})/.exec(text)![1]!;
    const verified = await call(server, '/v1/dev-user/verify-email', { code }, user.token);
    expect(verified).toEqual({ status: 200, body: { success: true, email_verified: true } });

    const again = await transferOne(server, user, wallet);
    expect(again.status).toBe(200);
    expect(await server.services.chain.gateway.getNonce(wallet.address)).toBe(nonce + 1n);
    // The platform-wide budget was not what refused it.
    expect((await server.services.sponsorshipReport.platformOn(today())).reached).toBe(false);
  });
});
