import { parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainClient } from '../content/contentSupport.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

interface Ready {
  status: string;
  checks: Record<string, string>;
}

/** The embedded chain deploys with a 1000 ether paymaster deposit; a 2000 ether threshold makes it low. */
const DEPOSIT_THRESHOLD = parseEther('2000');
const RELAYER_THRESHOLD = parseEther('1');

describe('low funds: /readyz degraded, automatic top-up on the embedded chain', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: {
        LOW_FUNDS_PAYMASTER_DEPOSIT: DEPOSIT_THRESHOLD.toString(),
        LOW_FUNDS_RELAYER_BALANCE: RELAYER_THRESHOLD.toString(),
      },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  const readyz = async (): Promise<{ status: number; body: Ready }> => {
    // The checks (deposit, balances) are the admin's (decisions §8).
    const res = await fetch(`${server.url}/readyz`, {
      headers: { authorization: `Bearer ${server.services.secrets.adminApiKey}` },
    });
    return { status: res.status, body: (await res.json()) as Ready };
  };
  /** Polls the check itself (not /readyz, which is rate-limited per address) until nothing is low. */
  const untilTopped = async () => {
    for (let i = 0; i < 100; i++) {
      if ((await server.services.funds.check()).low.length === 0) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('never topped up');
  };

  it('reports a low paymaster deposit with its amount, still 200, then tops it up', async () => {
    const deposit = await server.services.chain.gateway.paymasterDeposit();
    expect(deposit).toBeLessThan(DEPOSIT_THRESHOLD);

    const degraded = await readyz();
    expect(degraded.status).toBe(200);
    expect(degraded.body.status).toBe('degraded');
    expect(degraded.body.checks.funds).toMatch(/^low: paymaster_deposit; paymaster_deposit=1000 ether, /);
    expect(degraded.body.checks.funds).toContain('thresholds: paymaster_deposit=2000 ether');
    expect(degraded.body.checks.database).toBe('ok');

    await untilTopped();
    // Refilled to twice the threshold.
    expect(await server.services.chain.gateway.paymasterDeposit()).toBe(2n * DEPOSIT_THRESHOLD);
    const ready = await readyz();
    expect(ready.body.status).toBe('ready');
    expect(ready.body.checks.funds).toMatch(
      /^paymaster_deposit=\d+(\.\d+)? ether, relayer_balance=\d+(\.\d+)? ether$/,
    );
  });

  it('reports a drained relayer, then refills it from the deployer', async () => {
    const client = chainClient(server);
    const relayer = server.services.chain.telemetry.relayerAddress;
    await client.request({
      method: 'anvil_setBalance' as never,
      params: [relayer, `0x${parseEther('0.25').toString(16)}`] as never,
    });

    const degraded = await readyz();
    expect(degraded.status).toBe(200);
    expect(degraded.body.status).toBe('degraded');
    expect(degraded.body.checks.funds).toMatch(/^low: relayer_balance; .*relayer_balance=0\.25 ether/);

    await untilTopped();
    expect(await client.getBalance({ address: relayer })).toBeGreaterThanOrEqual(RELAYER_THRESHOLD);
    expect((await readyz()).body.status).toBe('ready');
  });
});

describe('POST /v1/admin/funding', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const funding = (body: unknown, key: string | null = server.services.secrets.adminApiKey) =>
    fetch(`${server.url}/v1/admin/funding`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify(body),
    });

  it('adds to the paymaster deposit and the operator wallet from the deployer, in one call', async () => {
    const { gateway, operator } = server.services.chain;
    const [deposit, operatorBalance] = await Promise.all([
      gateway.paymasterDeposit(),
      gateway.nativeBalance(operator.address),
    ]);
    const res = await funding({ paymaster_deposit: parseEther('3').toString(), operator: '12345' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, string>;
    expect(body).toMatchObject({
      success: true,
      paymaster_deposit: (deposit + parseEther('3')).toString(),
      operator_balance: (operatorBalance + 12345n).toString(),
    });
    expect(await gateway.paymasterDeposit()).toBe(deposit + parseEther('3'));
    expect(await gateway.nativeBalance(operator.address)).toBe(operatorBalance + 12345n);
  });

  it('needs the admin key and refuses bad amounts, changing nothing', async () => {
    const { gateway } = server.services.chain;
    const deposit = await gateway.paymasterDeposit();
    expect((await funding({ paymaster_deposit: '1' }, null)).status).toBe(401);
    const bad = await funding({ paymaster_deposit: '-5' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ success: false });
    const tooMuch = await funding({ paymaster_deposit: parseEther('100000000').toString() });
    expect(tooMuch.status).toBe(409);
    expect(await tooMuch.json()).toMatchObject({ success: false, error: 'funding_insufficient' });
    expect(await gateway.paymasterDeposit()).toBe(deposit);
  });
});
