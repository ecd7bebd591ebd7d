import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';

/**
 * A purpose-bound HMAC key derived from MASTER_KEY (HKDF-SHA256, info `dauth/<purpose>`), so one key never
 * serves two uses. A `KeyObject`, made once by its holder: `createHmac` imports a Buffer key anew on every
 * call (docs/performance-pin.md, round 8).
 */
export function deriveHmacKey(masterKey: Buffer, purpose: string): KeyObject {
  return createSecretKey(Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `dauth/${purpose}`, 32)));
}
