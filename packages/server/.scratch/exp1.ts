import { startAnvil, deployDauthContracts, dauthAccountFactoryAbi } from '@dauth/contracts';
import { createPublicClient, createWalletClient, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import fs from 'node:fs';
const dir = fs.mkdtempSync('/tmp/exp-');
const anvil = await startAnvil({ statePath: `${dir}/state.json` });
const t0 = Date.now();
const pc = createPublicClient({ chain: foundry, transport: http(anvil.rpcUrl) });
const acct = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const wc = createWalletClient({ chain: foundry, transport: http(anvil.rpcUrl), account: acct });
const addrs = await deployDauthContracts({ walletClient: wc, publicClient: pc as any, platformSigner: acct.address });
console.log('deploy ms', Date.now() - t0, addrs);
const b0 = await pc.getBlock();
console.log('block', b0.number, b0.timestamp, Math.floor(Date.now()/1000), b0.gasLimit);
// send 30 quick txs and watch timestamps
for (let i = 0; i < 30; i++) { await wc.sendTransaction({ to: acct.address, value: 1n }); }
const b1 = await pc.getBlock();
console.log('block', b1.number, b1.timestamp, Math.floor(Date.now()/1000));
const impl = await pc.readContract({ address: addrs.account_factory, abi: dauthAccountFactoryAbi, functionName: 'accountImplementation' });
console.log('impl', impl);
await anvil.stop();
console.log(fs.statSync(`${dir}/state.json`).size);
const anvil2 = await startAnvil({ statePath: `${dir}/state.json` });
const pc2 = createPublicClient({ chain: foundry, transport: http(anvil2.rpcUrl) });
const b2 = await pc2.getBlock();
console.log('after restart block', b2.number, b2.timestamp, (await pc2.getCode({address: addrs.dex}))?.length);
await anvil2.stop();
