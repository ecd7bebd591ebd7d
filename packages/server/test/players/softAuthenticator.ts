import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

/**
 * A software WebAuthn authenticator on node:crypto P-256 (ES256), written from the WebAuthn Level 2
 * spec and independent of the server's library: "none" attestation, discoverable credentials, and a
 * signature counter the test sets, so replays, wrong origins and lowered counters can be produced.
 */

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 256) return Buffer.from([(major << 5) | 24, length]);
  const b = Buffer.alloc(3);
  b[0] = (major << 5) | 25;
  b.writeUInt16BE(length, 1);
  return b;
}

export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string')
    return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  const parts = [head(5, value.size)];
  for (const [k, v] of value) parts.push(cbor(k), cbor(v));
  return Buffer.concat(parts);
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();
const b64u = (data: Buffer) => data.toString('base64url');

export interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}

export class SoftAuthenticator {
  readonly credentialId = randomBytes(32);
  readonly #privateKey: KeyObject;
  readonly #publicJwk: { x: string; y: string };
  /** The signature counter the next assertion reports (each assertion adds one first). */
  counter = 0;
  userHandle = '';

  constructor(
    readonly rpId: string,
    readonly origin: string,
  ) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.#privateKey = privateKey;
    this.#publicJwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  }

  get id(): string {
    return b64u(this.credentialId);
  }

  #clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  #authData(flags: number, counter: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(this.rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  /** A RegistrationResponseJSON for `navigator.credentials.create` options. */
  register(options: CreationOptions, origin = this.origin) {
    this.userHandle = options.user.id;
    const cose = cbor(
      new Map<Cbor, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(this.#publicJwk.x, 'base64url')],
        [-3, Buffer.from(this.#publicJwk.y, 'base64url')],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, cose]);
    // Flags: user present (0x01), user verified (0x04), attested credential data (0x40).
    const authData = this.#authData(0x45, this.counter, attested);
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64u(this.#clientData('webauthn.create', options.challenge, origin)),
        attestationObject: b64u(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /**
   * An AuthenticationResponseJSON for `navigator.credentials.get` options; the counter grows by one.
   * `userVerified: false` leaves out the UV flag (a security key without a PIN): user presence only.
   */
  assert(challenge: string, override: { origin?: string; counter?: number; userVerified?: boolean } = {}) {
    this.counter = override.counter ?? this.counter + 1;
    const clientData = this.#clientData('webauthn.get', challenge, override.origin ?? this.origin);
    // Flags: user present (0x01), user verified (0x04).
    const authData = this.#authData(override.userVerified === false ? 0x01 : 0x05, this.counter);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), this.#privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64u(clientData),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        userHandle: this.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
