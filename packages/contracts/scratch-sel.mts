import { toFunctionSelector, toFunctionSignature } from 'viem';
import { dauthPaymasterAbi, dauthAccountAbi } from './src/index.js';
for (const abi of [dauthPaymasterAbi, dauthAccountAbi]) {
  console.log('---');
  const rows = abi.filter((x) => x.type === 'function').map((f) => [toFunctionSelector(toFunctionSignature(f as any)), toFunctionSignature(f as any)]);
  rows.sort((a, b) => a[0]!.localeCompare(b[0]!));
  for (const r of rows) console.log(r.join(' '));
}
