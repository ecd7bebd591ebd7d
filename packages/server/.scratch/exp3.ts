import { startAnvil, deployDauthContracts, dauthDexAbi } from '@dauth/contracts';
import { createPublicClient, createWalletClient, http, encodeFunctionData } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
const anvil = await startAnvil({});
const pc = createPublicClient({ chain: foundry, transport: http(anvil.rpcUrl, { retryCount: 0 }) });
const acct = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const wc = createWalletClient({ chain: foundry, transport: http(anvil.rpcUrl), account: acct });
const a = await deployDauthContracts({ walletClient: wc, publicClient: pc as any, platformSigner: acct.address });
const data = encodeFunctionData({ abi: dauthDexAbi, functionName: 'init_self', args: [acct.address, 5n, acct.address] });
const dump = (e: any) => e.walk((x: any) => { console.log(' -', x.name, x.code, typeof x.data === 'string' ? x.data : JSON.stringify(x.data)?.slice(0, 100), x.raw); return false; });
try { await pc.estimateGas({ account: acct.address, to: a.dex, data }); } catch (e) { console.log('estimate'); dump(e); }
try { await pc.call({ account: acct.address, to: a.dex, data }); } catch (e) { console.log('call'); dump(e); }
const rpc = anvil.rpcUrl;
await anvil.stop();
try { await pc.getBlockNumber(); } catch (e) { console.log('down'); dump(e); }
const pc3 = createPublicClient({ chain: foundry, transport: http('http://10.255.255.1:8545', { retryCount: 0, timeout: 500 }) });
try { await pc3.getBlockNumber(); } catch (e) { console.log('timeout'); dump(e); }
