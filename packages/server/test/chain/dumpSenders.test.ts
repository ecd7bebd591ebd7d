import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readDumpSenders } from '../../src/chain/stateDump.js';

interface Account {
  nonce: number;
  balance: string;
  code: string;
  storage: Record<string, string>;
}

// Slices of one random pool: distinct enough for addresses and slots, and cheap to make by the hundred thousand.
const POOL = randomBytes(1 << 20).toString('hex');
let cursor = 0;
const hex = (bytes: number) => {
  cursor = (cursor + 7919) % (POOL.length - 2 * bytes);
  return POOL.slice(cursor, cursor + 2 * bytes);
};

/** A dump shaped as anvil writes it, with accounts of every kind and sizes that put accounts across reads. */
function syntheticDump(accounts: number): { text: string; accounts: Record<string, Account> } {
  const all: Record<string, Account> = {};
  for (let i = 0; i < accounts; i++) {
    const kind = i % 5;
    const code = kind === 0 ? '0x' : kind === 1 ? `0xef0100${hex(20)}` : `0x${hex(1 + ((i * 37) % 900))}`;
    const storage: Record<string, string> = {};
    for (let s = 0; s < (i * 13) % 40; s++) storage[`0x${hex(32)}`] = `0x${hex(1 + (s % 32))}`;
    all[`0x${hex(20)}`] = {
      nonce: i % 7 === 0 ? 0 : i % 3 === 0 ? 1 : i * 1_000_003,
      balance: `0x${hex(1 + (i % 32)).replace(/^0+/, '') || '0'}`,
      code,
      storage,
    };
  }
  const text = JSON.stringify({
    block: { number: '0x7' },
    accounts: all,
    best_block_number: 7,
    blocks: [],
    transactions: [],
    historical_states: null,
  });
  return { text, accounts: all };
}

/**
 * `readDumpSenders` (the last good dump's consistency check, docs/chain.md "The embedded chain") reads accounts
 * by their bytes, a megabyte at a time: it must find exactly the senders a JSON parser finds, wherever a read
 * cuts an account, and nothing past the head field.
 */
describe('readDumpSenders', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-dump-senders-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('finds every account without code or with a delegation, nonce above zero, as JSON.parse does', async () => {
    const { text, accounts } = syntheticDump(12_000);
    expect(text.length).toBeGreaterThan(3 * 1024 * 1024); // several reads
    const file = path.join(dir, 'state.json');
    fs.writeFileSync(file, text);
    const expected = new Map(
      Object.entries(accounts)
        .filter(([, a]) => a.nonce > 0 && (a.code === '0x' || /^0xef0100[0-9a-f]{40}$/.test(a.code)))
        .map(([address, a]) => [address, BigInt(a.nonce)]),
    );
    expect(expected.size).toBeGreaterThan(3_000);
    expect(await readDumpSenders(file)).toEqual(expected);
  });

  it('reads nothing after the head field, and answers undefined for a dump cut before it', async () => {
    const sender = `0x${hex(20)}`;
    const after = `0x${hex(20)}`;
    const whole = `{"block":{"number":"0x1"},"accounts":{"${sender}":{"nonce":3,"balance":"0x1","code":"0x","storage":{}}},"best_block_number":1,"blocks":[],"transactions":[{"note":"${after}":{"nonce":9,"balance":"0x1","code":"0x"}],"historical_states":null}`;
    const file = path.join(dir, 'small.json');
    fs.writeFileSync(file, whole);
    expect(await readDumpSenders(file)).toEqual(new Map([[sender, 3n]]));
    fs.writeFileSync(file, whole.slice(0, whole.indexOf(',"best_block_number"')));
    expect(await readDumpSenders(file)).toBeUndefined();
  });
});
