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
  const master =
    opts.masterKey ??
    readOrCreate(path.join(opts.dataDir, 'master.key'), () => hex(32), MASTER_KEY_FILE).value;
  const admin = opts.adminApiKey
    ? { value: opts.adminApiKey, created: false }
    : readOrCreate(path.join(opts.dataDir, 'admin-api-key'), () => hex(32), ADMIN_KEY_FILE);
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

/** What a key file must hold: a file that does not is refused, never used (an empty key would seal nothing). */
interface KeyFileFormat {
  test: RegExp;
  expected: string;
}
const MASTER_KEY_FILE: KeyFileFormat = { test: /^[0-9a-f]{64}$/i, expected: '64 hex digits' };
const ADMIN_KEY_FILE: KeyFileFormat = { test: /^\S{16,}$/, expected: 'at least 16 characters' };

/**
 * Reads a generated key file, or creates it. Creation is atomic and durable: the key is written to a
 * temporary file and fsynced, then hard-linked to its name (which fails if another process got there first;
 * then its complete file is read) and the directory fsynced. Before, the file was created and then written:
 * a process starting beside it could read it empty, and a power cut could lose a key the database already had
 * data sealed under.
 */
function readOrCreate(
  file: string,
  make: () => string,
  format: KeyFileFormat,
): { value: string; created: boolean } {
  const existing = readKeyFile(file, format);
  if (existing !== undefined) return { value: existing, created: false };
  const value = make();
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const fd = fs.openSync(temporary, 'wx', 0o600);
    try {
      fs.writeFileSync(fd, `${value}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    try {
      fs.linkSync(temporary, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      return { value: readKeyFile(file, format)!, created: false };
    }
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  syncDirectory(path.dirname(file));
  return { value, created: true };
}

/** The key a file holds, undefined when there is no file; a file that is not a key is refused. */
function readKeyFile(file: string, format: KeyFileFormat): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const value = text.trim();
  if (!format.test.test(value)) {
    throw new Error(
      `${file} is damaged: it must hold ${format.expected}. Restore it from the backup of this DATA_DIR; ` +
        'if this DATA_DIR never held any data, delete the file to have a new one generated.',
    );
  }
  return value;
}

function syncDirectory(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
