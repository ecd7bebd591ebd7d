import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface PlatformSecrets {
  masterKey: Buffer;
  adminApiKey: string;
  /** True when the admin key was generated just now (the process prints it once). */
  adminKeyGenerated: boolean;
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
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const master = opts.masterKey ?? readOrCreate(path.join(opts.dataDir, 'master.key'), () => hex(32)).value;
  const admin = opts.adminApiKey
    ? { value: opts.adminApiKey, created: false }
    : readOrCreate(path.join(opts.dataDir, 'admin-api-key'), () => hex(32));
  return {
    masterKey: Buffer.from(master, 'hex'),
    adminApiKey: admin.value,
    adminKeyGenerated: admin.created,
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
