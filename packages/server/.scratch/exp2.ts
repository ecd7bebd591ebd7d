import { startAnvil, deployDauthContracts, dauthAccountFactoryAbi, dauthAccountAbi, entryPointAbi, getAccountCreationCode, computeAccountAddress, encodeInitCode, signSponsoredUserOp, getUserOpHash } from '@dauth/contracts';
import { createPublicClient, createWalletClient, http, encodeFunctionData, slice, parseEther } from 'viem';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { foundry } from 'viem/chains';
const anvil = await startAnvil({});
const pc = createPublicClient({ chain: foundry, transport: http(anvil.rpcUrl) });
const acct = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const wc = createWalletClient({ chain: foundry, transport: http(anvil.rpcUrl), account: acct });
const a = await deployDauthContracts({ walletClient: wc, publicClient: pc as any, platformSigner: acct.address });
let t = Date.now();
const waitR = async (hash: `0x${string}`) => { let n = 0; for (;;) { try { return await pc.getTransactionReceipt({ hash }); } catch { n++; await new Promise(r => setTimeout(r, 2)); } } };
let tries = 0;
for (let i = 0; i < 50; i++) { const h = await wc.sendTransaction({ to: acct.address, value: 1n }); await waitR(h); }
console.log('50 seq tx ms', Date.now() - t);
const impl = await pc.readContract({ address: a.account_factory, abi: dauthAccountFactoryAbi, functionName: 'accountImplementation' });
const owner = privateKeyToAccount(generatePrivateKey());
const sender = computeAccountAddress({ factory: a.account_factory, implementation: impl, owner: owner.address, salt: 0n });
console.log(sender, await pc.readContract({ address: a.account_factory, abi: dauthAccountFactoryAbi, functionName: 'getAddress', args: [owner.address, 0n] }));
await wc.sendTransaction({ to: sender, value: parseEther('1') });
const callData = encodeFunctionData({ abi: dauthAccountAbi, functionName: 'execute', args: [acct.address, 1000n, '0x'] });
const runtime = slice(getAccountCreationCode(impl, owner.address), 10);
try {
const g = await pc.estimateGas({ account: a.entry_point, to: sender, data: callData, stateOverride: [{ address: sender, code: runtime }] });
console.log('estimate', g);
} catch (e) { console.log('estimate fail', (e as Error).message.slice(0, 500)); }
const fees = await pc.estimateFeesPerGas();
console.log(fees);
const now = Math.floor(Date.now() / 1000);
const op = await signSponsoredUserOp({ sender, nonce: 0n, initCode: encodeInitCode(a.account_factory, owner.address, 0n), callData, callGasLimit: 100000n, verificationGasLimit: 300000n, preVerificationGas: 50000n, maxFeePerGas: fees.maxFeePerGas!, maxPriorityFeePerGas: fees.maxPriorityFeePerGas! }, { entryPoint: a.entry_point, chainId: 31337, owner, paymaster: a.paymaster, paymasterSigner: acct, validUntil: now + 300, validAfter: now });
const relayer = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const rc = createWalletClient({ chain: foundry, transport: http(anvil.rpcUrl), account: relayer });
try { await pc.simulateContract({ account: relayer, address: a.entry_point, abi: entryPointAbi, functionName: 'handleOps', args: [[op], relayer.address] }); console.log('sim ok'); } catch (e) { console.log('sim fail', (e as Error).message.slice(0, 800)); }
const h = await rc.writeContract({ address: a.entry_point, abi: entryPointAbi, functionName: 'handleOps', args: [[op], relayer.address], gas: 2_000_000n });
const r = await waitR(h);
console.log(r.status, r.gasUsed, r.logs.length);
const badOp = { ...op, nonce: 1n, initCode: '0x' as const };
try { await pc.simulateContract({ account: relayer, address: a.entry_point, abi: entryPointAbi, functionName: 'handleOps', args: [[badOp], relayer.address] }); console.log('sim ok'); } catch (e: any) { console.log('sim fail', e.name, e.cause?.name, e.cause?.data?.errorName, e.cause?.data?.args, e.message.slice(0, 300)); e.walk((x: any) => { console.log(' -', x.name, x.code, x.details?.slice?.(0,100)); return false; }); }
await anvil.stop();
