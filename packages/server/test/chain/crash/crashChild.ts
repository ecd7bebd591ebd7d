/**
 * The service under a fault-injection test (crashRecovery.test.ts): a real dauth started in this process
 * (its embedded anvil a child of it, in the same process group), which then works through every kind of
 * chain write a user can get answered as included. Each answered write is printed as one JSON line on
 * stdout the moment the answer arrives; the test SIGKILLs the whole process group at a random moment after
 * one of them and checks, after a restart on the same DATA_DIR, that everything printed is on the chain.
 */
import { createHash, randomBytes } from 'node:crypto';
import { entryPointAbi } from '@dauth/contracts';
import { createWalletClient, getAddress, parseEther, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import pino from 'pino';
import { loadConfig } from '../../../src/config.js';
import { startServer } from '../../../src/server.js';
import type { TestServer } from '../../helpers/server.js';
import {
  admin,
  buy,
  consume,
  encryptPayload,
  fund,
  newProvider,
  payloadOf,
  post,
} from '../../content/contentSupport.js';

const emit = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

const env = process.env as Record<string, string>;
const config = loadConfig(env);
const running = await startServer(config, {
  logger: pino({ level: env.LOG_LEVEL ?? 'silent' }, pino.destination(2)),
  ...(env.TEST_PG_SCHEMA ? { pgSchema: env.TEST_PG_SCHEMA } : {}),
  // TEST_JOURNAL=off shows what the test catches without the journal.
  ...(env.TEST_JOURNAL === 'off' ? { chain: { journal: false } } : {}),
});
const server: TestServer = { ...running, config, dataDir: config.dataDir };
const { services } = server;
if (config.chain.kind === 'external') {
  // An external chain gets no paymaster deposit nor operator funds at deployment: the platform funds them,
  // through the journal like every transaction of the service (they must survive the node's rewind too).
  const deployer = privateKeyToAccount(env.DEPLOYER_PRIVATE_KEY as Hex);
  const wallet = createWalletClient({
    account: deployer,
    chain: services.chain.gateway.client.chain,
    transport: services.chain.journal.sender.transportFor(deployer.address),
  });
  const { entry_point: entryPoint, paymaster } = services.chain.info.contracts;
  const deposit = await wallet.writeContract({
    address: entryPoint,
    abi: entryPointAbi,
    functionName: 'depositTo',
    args: [paymaster],
    value: parseEther('100'),
  });
  const funded = await wallet.sendTransaction({
    to: services.chain.operator.address,
    value: parseEther('10'),
  });
  for (const hash of [deposit, funded]) {
    await services.chain.journal.sender.confirm(
      await services.chain.gateway.client.waitForTransactionReceipt({ hash, pollingInterval: 20 }),
    );
  }
}
emit({ step: 'ready' });

const password = 'correct horse battery';
async function pinUser(label: string) {
  const email = `${label}-${randomBytes(6).toString('hex')}@example.com`;
  await post(server, '/v1/dev-user/register', { email, password });
  const login = await post<{ token: string; uuid: string }>(server, '/v1/dev-user/login_devuser', {
    email,
    password,
  });
  const uuid = Number(login.body.uuid);
  const pinSalt = randomBytes(32).toString('hex');
  const pinHash = createHash('sha256').update(`123456${pinSalt}`, 'utf8').digest('hex');
  const reg = await post<{ data: { address: Address; key_share_user: string }[] }>(
    server,
    '/v1/pin/register',
    { user_uuid: uuid, pin_hash: pinHash, pin_salt: pinSalt },
    login.body.token,
  );
  const pin = { pin_hash: pinHash, pin_salt: pinSalt, key_share_user: reg.body.data[0]!.key_share_user };
  return { email, uuid, token: login.body.token, pin, wallet: getAddress(reg.body.data[0]!.address) };
}

const provider = await newProvider(server, 40);
const alice = await pinUser('alice');
const bob = await pinUser('bob');
emit({ step: 'users', provider, alice, bob });

await fund(server, alice.wallet, parseEther('10'));
const minted = await post(
  server,
  '/v1/admin/faucet',
  { address: alice.wallet, token: '1000' },
  admin(server),
);
if (minted.status !== 200) throw new Error(`faucet: ${JSON.stringify(minted.body)}`);
emit({ step: 'faucet', wallet: alice.wallet });

// A PIN wallet's first operation deploys it.
const first = await post<{ tx_hash: string }>(
  server,
  '/v1/pin/verify',
  { user_uuid: alice.uuid, ...alice.pin, calls: [{ to: bob.wallet, value: '1' }] },
  alice.token,
);
if (first.status !== 200) throw new Error(`first op: ${JSON.stringify(first.body)}`);
emit({ step: 'first_op', tx: first.body.tx_hash, wallet: alice.wallet });

const transfer = await post<{ transaction_hash: string }>(
  server,
  '/v1/token/transfer',
  {
    from_address: alice.wallet,
    to_address: bob.wallet,
    amount: '250',
    contract_address: services.chain.info.contracts.token,
    ...alice.pin,
  },
  alice.token,
);
if (transfer.status !== 200) throw new Error(`transfer: ${JSON.stringify(transfer.body)}`);
emit({ step: 'erc20', tx: transfer.body.transaction_hash, to: bob.wallet, amount: '250' });

const { slot } = await services.slots.ensureSlot(alice.uuid, provider.clientId);
emit({ step: 'slot', slotId: slot.id, slot: slot.contentAddress, owner: alice.wallet });

const player = {
  user: alice,
  pin: alice.pin,
  wallet: alice.wallet,
  slotId: slot.id,
  slot: getAddress(slot.contentAddress),
};
const bought = await buy(server, provider, player as never, '1000');
if (bought.status !== 200) throw new Error(`buy: ${JSON.stringify(bought.body)}`);
emit({ step: 'purchase', tx: bought.body.tx_hash, cuid: provider.cuid, slot: player.slot, amount: '1000' });

const spend = async (amount: number) => {
  const res = await consume(server, {
    encrypted_message: encryptPayload(provider, payloadOf(provider, player as never, BigInt(amount))),
  });
  return res;
};
emit({ step: 'consume_sent', n: 0, amount: 100 });
const spent = await spend(100);
if (spent.status !== 200) throw new Error(`consume: ${JSON.stringify(spent.body)}`);
emit({ step: 'consumed', amount: 100, n: 0 });
await post(server, '/v1/admin/content/release', { cuid: provider.cuid, enabled: true }, admin(server));
await post(
  server,
  '/v1/admin/content/pool',
  { cuid: provider.cuid, amount: parseEther('1').toString() },
  admin(server),
);
const released = await post<{ tx_hash: string; released_amount: string }>(
  server,
  '/v1/development-api/release_used_balance',
  { client_id: provider.clientId, cuid: provider.cuid, slot: player.slot },
  provider.developer.token,
);
if (released.status !== 200) throw new Error(`release: ${JSON.stringify(released.body)}`);
emit({
  step: 'release',
  tx: released.body.tx_hash,
  owner: provider.ownerAddr,
  amount: released.body.released_amount,
  // Purchases pay the provider's share to the same address: what it holds once the release is in.
  ownerBalance: String(await services.chain.gateway.nativeBalance(provider.ownerAddr)),
});

// A marketplace sale: Bob's slot of the app goes to Alice.
const { slot: bobSlot } = await services.slots.ensureSlot(bob.uuid, provider.clientId);
const pinOf = (p: { pin_hash: string; key_share_user: string }) => ({
  pinHash: p.pin_hash,
  keyShareUser: p.key_share_user,
});
const listing = await services.market.createListing({
  userUuid: bob.uuid,
  clientId: provider.clientId,
  price: '0',
  pin: pinOf(bob.pin),
});
const sale = await services.market.purchase(listing.id, alice.uuid, pinOf(alice.pin));
emit({
  step: 'market',
  tx: sale.transfer.txHash,
  slotId: bobSlot.id,
  buyer: alice.uuid,
  buyerWallet: alice.wallet,
});

// A consumption stream until the process is killed: every accepted one is printed.
for (let i = 1; ; i++) {
  emit({ step: 'consume_sent', n: i, amount: 1 });
  const res = await spend(1);
  if (res.status === 200) emit({ step: 'consumed', amount: 1, n: i });
  else emit({ step: 'consume_refused', n: i, status: res.status, error: res.body.error });
}
