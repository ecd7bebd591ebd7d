import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestChain } from './chainTestHelpers.js';

/**
 * Contracts deployed by an earlier version (before issue 12) lack what this one calls and relies on:
 * a recorded dex or content-token contract whose code is not this build's stops the start, with the
 * way to redeploy, instead of failing later on every call that needs the new code.
 */
describe('a recorded deployment whose code is not this build', () => {
  it('refuses to start on the embedded chain and says which directory to delete', async () => {
    const first = await startTestChain();
    const { dataDir } = first;
    const { contracts } = first.chain.info;
    await first.close();
    const recordFile = path.join(dataDir, 'chain', 'deployment.json');
    const original = fs.readFileSync(recordFile, 'utf8');

    // Another contract (the ERC-20) recorded as the content-token contract: it has code, other code.
    const record = JSON.parse(original) as { contracts: Record<string, string> };
    record.contracts.content_token = contracts.token;
    fs.writeFileSync(recordFile, `${JSON.stringify(record, null, 2)}\n`);
    const refused = startTestChain({ dataDir });
    await expect(refused).rejects.toThrow(
      `Refusing to start: DauthContentToken at ${contracts.token} runs other code than this version's build`,
    );
    await expect(refused).rejects.toThrow(`delete the data directory ${dataDir} entirely`);

    // The record as deployed: this build's code, the start goes on.
    fs.writeFileSync(recordFile, original);
    const again = await startTestChain({ dataDir });
    try {
      expect(again.chain.info.contracts).toEqual(contracts);
    } finally {
      await again.close();
    }
  });
});
