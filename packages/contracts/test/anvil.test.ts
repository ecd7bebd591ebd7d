import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, createTestClient, http, parseEther } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, describe, expect, it } from 'vitest';
import { getFreePort, startAnvil } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'dauth-anvil-'));
const someone = '0x000000000000000000000000000000000000d0d0';

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('startAnvil', () => {
  it('keeps balances, code and blocks across a restart with --state', async () => {
    const statePath = join(dir, 'state.json');
    const first = await startAnvil({ statePath });
    expect(first.rpcUrl).toBe(`http://127.0.0.1:${first.port}`);
    const testClient = createTestClient({ chain: foundry, mode: 'anvil', transport: http(first.rpcUrl) });
    await testClient.setBalance({ address: someone, value: parseEther('3') });
    await testClient.setCode({ address: someone, bytecode: '0x6001' });
    await testClient.mine({ blocks: 3 });
    await first.stop();
    // stop() resolved only after exit: the RPC is gone.
    await expect(fetch(first.rpcUrl, { method: 'POST' })).rejects.toThrow();

    const second = await startAnvil({ statePath });
    try {
      const client = createPublicClient({ chain: foundry, transport: http(second.rpcUrl) });
      expect(await client.getChainId()).toBe(31337);
      expect(await client.getBalance({ address: someone })).toBe(parseEther('3'));
      expect(await client.getCode({ address: someone })).toBe('0x6001');
      expect(await client.getBlockNumber()).toBe(3n);
    } finally {
      await second.stop();
    }
  });

  it('uses the port it is given, and stop() can be called twice', async () => {
    const port = await getFreePort();
    const anvil = await startAnvil({ port });
    expect(anvil.port).toBe(port);
    await Promise.all([anvil.stop(), anvil.stop()]);
  });

  it('fails clearly when anvil cannot start', async () => {
    const taken = await startAnvil();
    try {
      await expect(startAnvil({ port: taken.port, startTimeoutMs: 5_000 })).rejects.toThrow(
        /anvil exited during start/,
      );
    } finally {
      await taken.stop();
    }
  });
});
