/**
 * One replica of `npm run bench:ops -- --replicas N` (bench/ops.replicas.ts): the chain layer of a dauth
 * process on the shared PostgreSQL schema and external anvil, with its own relayer key (REPLICA_ID of
 * RELAYER_PRIVATE_KEYS), driven over IPC: `setup` makes its callers' wallets, `round` runs a closed loop.
 */
import pino from 'pino';
import { generatePrivateKey } from 'viem/accounts';
import { createChainServices } from '../packages/server/src/composition/chain.js';
import {
  type OperationOwner,
  ownerFromPrivateKey,
} from '../packages/server/src/chain/operations/operationOwner.js';
import { loadConfig } from '../packages/server/src/config.js';
import { openDatabase } from '../packages/server/src/db/database.js';

type Command = { cmd: 'setup'; callers: number } | { cmd: 'round'; ops: number } | { cmd: 'close' };

const config = loadConfig(process.env);
const database = openDatabase({ databaseUrl: config.databaseUrl, pgSchema: process.env.BENCH_PG_SCHEMA });
const chain = await createChainServices(config, { logger: pino({ level: 'silent' }), db: database.db });
const send = (message: Record<string, unknown>) => process.send!(message);

if (process.env.BENCH_FUND === '1') {
  // The first replica funds the paymaster and every replica's relayer from the deployer, once.
  await chain.faucet.depositForPaymaster(10n ** 21n);
  for (const address of chain.telemetry.relayerAddresses) await chain.faucet.sendNative(address, 10n ** 20n);
}

const token = chain.info.contracts.token;
const receiver = ownerFromPrivateKey(Buffer.from(generatePrivateKey().slice(2), 'hex')).address;
let owners: OperationOwner[] = [];
const transfer = (owner: OperationOwner) =>
  chain.operations.submitOperation({
    owner,
    salt: 0n,
    calls: [chain.calls.erc20Transfer(token, receiver, 1n)],
  });

process.on('message', (message: Command) => {
  void (async () => {
    if (message.cmd === 'setup') {
      owners = Array.from({ length: message.callers }, () =>
        ownerFromPrivateKey(Buffer.from(generatePrivateKey().slice(2), 'hex')),
      );
      for (const owner of owners) {
        await chain.faucet.fund({
          address: chain.gateway.walletAddress(owner.address, 0n),
          token: 10n ** 24n,
        });
      }
      await Promise.all(owners.map(transfer)); // deploys each wallet
      send({ done: 'setup' });
    } else if (message.cmd === 'round') {
      let remaining = message.ops;
      const transactions = new Set<string>();
      await Promise.all(
        owners.map(async (owner) => {
          while (remaining > 0) {
            remaining -= 1;
            const result = await transfer(owner);
            if (!result.success) throw new Error(`operation reverted: ${result.revert?.message}`);
            transactions.add(result.txHash);
          }
        }),
      );
      send({ done: 'round', transactions: transactions.size });
    } else {
      await chain.close();
      await database.close();
      send({ done: 'close' });
      process.exit(0);
    }
  })().catch((err: unknown) => {
    send({ error: String(err) });
    process.exit(1);
  });
});
send({ ready: true, relayer: chain.telemetry.relayerAddress });
