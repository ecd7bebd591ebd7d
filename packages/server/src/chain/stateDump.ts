import fs from 'node:fs';
import path from 'node:path';
import { copyFileDurably } from './durableFile.js';

/**
 * anvil rewrites its state file in place (open with O_TRUNC, then write, seen with strace): a kill during
 * one of its dumps every few seconds leaves half a file, which anvil refuses to load. The service keeps
 * its own copy of the newest complete dump it read, written atomically, and compacts the chain journal
 * only up to that copy's head (`JournalMaintenance`), so a start from the copy plus the journal's replay
 * is always the whole chain.
 *
 * A dump holds the last 2,000 blocks' transactions with their call traces: 100 MB after 45,000 content
 * records, up to several hundred MB. It is never read into a string (a JSON.parse of 100 MB held the event
 * loop for a second and V8 cannot hold a string over 512 MB): the kernel copies it, and two small reads
 * tell whether a file is whole and which head it holds (docs/chain.md, "A dump cut short").
 */
export function lastGoodDumpPath(statePath: string): string {
  return path.join(path.dirname(statePath), 'state.last-good.json');
}

/**
 * How every whole dump of anvil 1.x ends: `historical_states` is the last field of its `SerializableState`
 * (null: the service does not preserve them). anvil writes the file front to back, so a file cut short is a
 * prefix of a whole dump and ends with these bytes only when nothing is missing. A test pins it against the
 * anvil this build runs (test/chain/crash/dumpCutShort.test.ts).
 */
const WHOLE_DUMP_END = Buffer.from(',"historical_states":null}');
/** The head's field: it follows the block environment and the accounts, before blocks and transactions. */
const HEAD_FIELD = Buffer.from(',"best_block_number":');
const SCAN_CHUNK_BYTES = 1 << 20;
/** More digits than any block number has: not a dump's head. */
const MAX_HEAD_DIGITS = 20;

/** Whether the file at `file` is a whole dump (its last bytes only). */
export function isWholeDump(file: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return false;
  }
  try {
    const { size } = fs.fstatSync(fd);
    const tail = Buffer.alloc(Math.min(size, WHOLE_DUMP_END.length + 16));
    fs.readSync(fd, tail, 0, tail.length, size - tail.length);
    return trimEnd(tail).subarray(-WHOLE_DUMP_END.length).equals(WHOLE_DUMP_END);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The `best_block_number` a dump file holds, read from its front in chunks (the event loop is never held),
 * or undefined when the file does not reach that field yet (being written) or does not exist. It says
 * nothing of whether the rest of the file is there: `isWholeDump`.
 */
export async function readDumpHead(file: string): Promise<bigint | undefined> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(SCAN_CHUNK_BYTES + HEAD_FIELD.length + MAX_HEAD_DIGITS + 1);
    // Bytes of the previous chunk carried over, so a field split between two reads is still found.
    let carried = 0;
    let position = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, carried, SCAN_CHUNK_BYTES, position);
      if (bytesRead === 0) return undefined;
      position += bytesRead;
      const filled = carried + bytesRead;
      const at = buffer.subarray(0, filled).indexOf(HEAD_FIELD);
      if (at >= 0) {
        const start = at + HEAD_FIELD.length;
        let end = start;
        while (end < filled && end - start <= MAX_HEAD_DIGITS && isDigit(buffer[end]!)) end++;
        if (end - start > MAX_HEAD_DIGITS) return undefined;
        if (end < filled) return end > start ? BigInt(buffer.toString('latin1', start, end)) : undefined;
        // The number may run past this read: read on, keeping the field.
        buffer.copy(buffer, 0, at, filled);
        carried = filled - at;
        continue;
      }
      carried = Math.min(filled, HEAD_FIELD.length - 1);
      buffer.copy(buffer, 0, filled - carried, filled);
    }
  } finally {
    await handle.close();
  }
}

/**
 * Keeps the state file as the last good copy when it is a whole dump: the kernel copies it, the copy (which
 * nothing else writes) is checked whole, and only then fsynced and renamed into place. A dump anvil rewrote
 * while it was copied (its size or modification time moved) is not kept. Returns the copy's head, or
 * undefined when nothing was kept (try again after anvil's next dump).
 */
export async function keepLastGoodDump(statePath: string): Promise<bigint | undefined> {
  const before = await settledStat(statePath);
  if (before === undefined) return undefined;
  return copyFileDurably(statePath, lastGoodDumpPath(statePath), async (copy) => {
    const after = await fs.promises.stat(statePath, { bigint: true });
    if (after.mtimeNs !== before.mtimeNs || after.size !== before.size) return undefined;
    return isWholeDump(copy) ? await readDumpHead(copy) : undefined;
  });
}

/**
 * When the state file is not a whole dump and a last good copy exists: moves the damaged file aside
 * (`state.json.damaged-<ms>`, kept for a post-mortem) and puts the copy in its place. Returns the damaged
 * file's new path, or undefined when there was nothing to restore (the file is whole, or no copy exists).
 */
export function restoreLastGoodDump(statePath: string): string | undefined {
  const copy = lastGoodDumpPath(statePath);
  if (!fs.existsSync(statePath) || !fs.existsSync(copy)) return undefined;
  if (isWholeDump(statePath)) return undefined;
  return swapInLastGoodDump(statePath, 'damaged');
}

/**
 * Moves the state file aside (`state.json.<label>-<ms>`, kept for a post-mortem) and puts the last good copy,
 * which must exist, in its place. Returns the moved file's new path.
 */
export function swapInLastGoodDump(statePath: string, label: 'damaged' | 'inconsistent'): string {
  const aside = `${statePath}.${label}-${Date.now()}`;
  fs.renameSync(statePath, aside);
  fs.copyFileSync(lastGoodDumpPath(statePath), statePath);
  return aside;
}

/**
 * The file's stat once it has not been written for `quietMs` (every write of a dump moves its modification
 * time), waiting at most `patienceMs`: a copy started in the middle of one of anvil's dumps would be thrown
 * away. Undefined when anvil kept writing all along.
 */
async function settledStat(
  file: string,
  quietMs = 300,
  patienceMs = 5_000,
): Promise<fs.BigIntStats | undefined> {
  const deadline = Date.now() + patienceMs;
  for (;;) {
    const stat = await fs.promises.stat(file, { bigint: true });
    const quietFor = Date.now() - Number(stat.mtimeNs / 1_000_000n);
    if (quietFor >= quietMs) return stat;
    if (Date.now() + quietMs - quietFor > deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, quietMs - quietFor));
  }
}

const isDigit = (byte: number) => byte >= 0x30 && byte <= 0x39;

/** `bytes` without trailing JSON whitespace. */
function trimEnd(bytes: Buffer): Buffer {
  let end = bytes.length;
  while (end > 0 && [0x20, 0x0a, 0x0d, 0x09].includes(bytes[end - 1]!)) end--;
  return bytes.subarray(0, end);
}
