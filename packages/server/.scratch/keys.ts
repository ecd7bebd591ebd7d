import { mnemonicToAccount } from 'viem/accounts';
import { bytesToHex } from 'viem';
for (let i = 0; i < 10; i++) { const a = mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: i }); console.log(i, a.address, bytesToHex(a.getHdKey().privateKey!)); }
