import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface PlatformSecrets {
  masterKey: Buffer;
  adminApiKey: string;
  /** True when the admin key was generated just now (the process prints it once). */
  adminKeyGenerated: boolean;
  /** Files and directories whose loose permissions were tightened at start (the caller warns). */
  tightened: string[];
}

/**
 * Removes every group and other permission bit from `target` if it has any; returns whether it did.
 * DATA_DIR holds the database, the chain state, mail with recovery codes and the key files: nobody
 * but the service's own user may read any of it.
 */
export function tightenMode(target: string): boolean {
  let mode: number;
  try {
    mode = fs.statSync(target).mode & 0o777;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
  if ((mode & 0o077) === 0) return false;
  fs.chmodSync(target, mode & 0o700);
  return true;
}

/**
 * Returns the configured secrets, generating the embedded-default ones into DATA_DIR on first
 * start (bare hex/text, mode 0600) as decisions §1 prescribes.
 */
export function ensureSecrets(opts: {
  dataDir: string;
  masterKey: string | undefined;
  adminApiKey: string | undefined;
}): PlatformSecrets {
  fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  // Existing installs: DATA_DIR and the key files made before modes were enforced (or copied with
  // loose ones) are fixed at start, with a warning, rather than refused: the fix is always safe.
  const tightened = [
    opts.dataDir,
    path.join(opts.dataDir, 'master.key'),
    path.join(opts.dataDir, 'admin-api-key'),
  ].filter((target) => tightenMode(target));
  const master = opts.masterKey ?? readOrCreate(path.join(opts.dataDir, 'master.key'), () => hex(32)).value;
  const admin = opts.adminApiKey
    ? { value: opts.adminApiKey, created: false }
    : readOrCreate(path.join(opts.dataDir, 'admin-api-key'), () => hex(32));
  return {
    masterKey: Buffer.from(master, 'hex'),
    adminApiKey: admin.value,
    adminKeyGenerated: admin.created,
    tightened,
  };
}

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

function readOrCreate(file: string, make: () => string): { value: string; created: boolean } {
  try {
    return { value: fs.readFileSync(file, 'utf8').trim(), created: false };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const value = make();
  // 'wx' fails if another process won the race; then read what it wrote.
  try {
    fs.writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
    return { value, created: true };
  } catch {
    return { value: fs.readFileSync(file, 'utf8').trim(), created: false };
  }
}
