import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { encodeFunctionData } from 'viem';
import { dauthContentTokenAbi } from '@dauth/contracts';
import { loadConfig } from '../src/config.js';
import { createServices } from '../src/composition.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prof-'));
const s = await createServices(loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' }), { logger: pino({ level: 'warn' }) });
const cuid = 'c1';
await s.chain.operator.execute([s.chain.calls.platform('contentToken', 'registerProvider', ['cl', cuid, 10, '0x' + '22'.repeat(20) as `0x${string}`])]);
const slots = Array.from({ length: 100 }, (_, i) => ('0x' + (i + 1).toString(16).padStart(40, '0')) as `0x${string}`);
// fund balances: buy from operator
for (const slot of slots) await s.chain.operator.execute([s.chain.calls.platform('contentToken', 'buy', [cuid, slot], 1000000n)]);
const client = s.chain.gateway.client;
for (const n of [1, 10, 50, 100]) {
  const data = encodeFunctionData({ abi: dauthContentTokenAbi, functionName: 'recordUsage', args: [cuid, slots.slice(0, n), slots.slice(0, n).map(() => 1n)] });
  const t = performance.now();
  for (let i = 0; i < 10; i++) await client.call({ account: s.chain.operator.address, to: s.chain.info.contracts.content_token, data });
  console.log('eth_call recordUsage', n, ((performance.now() - t) / 10).toFixed(2), 'ms');
  const t2 = performance.now();
  for (let i = 0; i < 5; i++) await s.chain.operator.execute([{ to: s.chain.info.contracts.content_token, data }], { callGasLimit: 5_000_000n });
  console.log('operator.execute recordUsage', n, ((performance.now() - t2) / 5).toFixed(2), 'ms');
}
await s.close();
process.exit(0);
