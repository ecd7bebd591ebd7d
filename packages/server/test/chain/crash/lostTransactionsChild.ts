/**
 * The crashing side of `npm run bench:recovery` and of startupProgress.test.ts: sets up a provider and a
 * player, stops cleanly (the chain's state file then holds all of it), starts again with anvil's periodic
 * dumps effectively off, sends LOST_TRANSACTIONS (1,000) transactions through the chain journal and a few
 * consumptions, and prints `ready` for the parent to SIGKILL the process group: the chain loses every one
 * of them, the journal keeps them.
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { parseEther, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { EMBEDDED_CHAIN_KEYS } from '../../../src/chain/devAccounts.js';
import { loadConfig } from '../../../src/config.js';
import { startServer } from '../../../src/server.js';
import type { TestServer } from '../../helpers/server.js';
import {
  buy,
  consume,
  encryptPayload,
  newPlayer,
  newProvider,
  payloadOf,
} from '../../content/contentSupport.js';

const LOST = Number(process.env.LOST_TRANSACTIONS ?? 1000);
const emit = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
const config = loadConfig(process.env);
const logger = pino({ level: 'silent' });

const first = await startServer(config, { logger });
const firstServer: TestServer = { ...first, config, dataDir: config.dataDir };
const provider = await newProvider(firstServer);
const player = await newPlayer(firstServer, provider, '5');
const bought = await buy(firstServer, provider, player, '1000000');
if (bought.status !== 200) throw new Error(`buy: ${JSON.stringify(bought.body)}`);
await first.close();

const running = await startServer(config, { logger, chain: { embedded: { stateIntervalSeconds: 86_400 } } });
const server: TestServer = { ...running, config, dataDir: config.dataDir };
const { chain } = server.services;
const deployer = privateKeyToAccount(EMBEDDED_CHAIN_KEYS.deployer);
let nonce = await chain.gateway.client.getTransactionCount({
  address: deployer.address,
  blockTag: 'pending',
});
const fees = await chain.gateway.fees();
const hashes: Hex[] = [];
for (let i = 0; i < LOST; i++) {
  const raw = await deployer.signTransaction({
    chainId: chain.info.chainId,
    type: 'eip1559',
    to: `0x${randomBytes(20).toString('hex')}`,
    value: parseEther('0.000001'),
    gas: 21_000n,
    nonce: nonce++,
    ...fees,
  });
  hashes.push(await chain.journal.sender.send(raw, deployer.address));
}
for (const hash of hashes) {
  await chain.journal.sender.confirm(
    await chain.gateway.client.waitForTransactionReceipt({ hash, pollingInterval: 5 }),
  );
}
for (let i = 0; i < 5; i++) {
  const res = await consume(server, {
    encrypted_message: encryptPayload(provider, payloadOf(provider, player, 1n)),
  });
  if (res.status !== 200) throw new Error(`consume: ${JSON.stringify(res.body)}`);
}
emit({ step: 'ready', lost: hashes.length, provider, player: { slotId: player.slotId } });
