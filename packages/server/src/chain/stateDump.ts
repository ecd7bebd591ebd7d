import fs from 'node:fs';
import path from 'node:path';
import { replaceFileDurably } from './durableFile.js';

/**
 * anvil rewrites its state file in place (open with O_TRUNC, then write, seen with strace): a kill during
 * one of its dumps every few seconds leaves half a file, which anvil refuses to load. The service keeps
 * its own copy of the newest complete dump it read, written atomically, and compacts the chain journal
 * only up to that copy's head (`JournalMaintenance`), so a start from the copy plus the journal's replay
 * is always the whole chain.
 */
export function lastGoodDumpPath(statePath: string): string {
  return path.join(path.dirname(statePath), 'state.last-good.json');
}

/** The head block of a dump's text, or undefined when it is not a complete dump. */
export function dumpHead(text: string): bigint | undefined {
  try {
    const state = JSON.parse(text) as { best_block_number?: unknown };
    return typeof state.best_block_number === 'number' ? BigInt(state.best_block_number) : undefined;
  } catch {
    return undefined;
  }
}

/** Writes `text` (a complete dump) as the last good copy, whole or not at all (`replaceFileDurably`). */
export async function keepLastGoodDump(statePath: string, text: string): Promise<void> {
  await replaceFileDurably(lastGoodDumpPath(statePath), text);
}

/**
 * When the state file is not a complete dump and a last good copy exists: moves the damaged file aside
 * (`state.json.damaged-<ms>`, kept for a post-mortem) and puts the copy in its place. Returns the damaged
 * file's new path, or undefined when there was nothing to restore (the file is whole, or no copy exists).
 */
export function restoreLastGoodDump(statePath: string): string | undefined {
  const copy = lastGoodDumpPath(statePath);
  if (!fs.existsSync(statePath) || !fs.existsSync(copy)) return undefined;
  if (dumpHead(fs.readFileSync(statePath, 'utf8')) !== undefined) return undefined;
  const damaged = `${statePath}.damaged-${Date.now()}`;
  fs.renameSync(statePath, damaged);
  fs.copyFileSync(copy, statePath);
  return damaged;
}
