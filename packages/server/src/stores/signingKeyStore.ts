import type { Db } from '../db/database.js';

export interface SigningKeysTable {
  kid: string;
  alg: string;
  public_jwk: string;
  private_jwk_sealed: string;
  created_at: number;
}

declare module '../db/database.js' {
  interface Database {
    signing_keys: SigningKeysTable;
  }
}

export interface StoredSigningKey {
  kid: string;
  alg: string;
  publicJwk: string;
  privateJwkSealed: string;
  createdAt: number;
}

export class SigningKeyStore {
  constructor(private readonly db: Db) {}

  /** All keys, oldest first: every replica then signs with the same (oldest) key. */
  async list(): Promise<StoredSigningKey[]> {
    const rows = await this.db
      .selectFrom('signing_keys')
      .selectAll()
      .orderBy('created_at')
      .orderBy('kid')
      .execute();
    return rows.map((r) => ({
      kid: r.kid,
      alg: r.alg,
      publicJwk: r.public_jwk,
      privateJwkSealed: r.private_jwk_sealed,
      createdAt: Number(r.created_at),
    }));
  }

  async insert(key: StoredSigningKey): Promise<void> {
    await this.db
      .insertInto('signing_keys')
      .values({
        kid: key.kid,
        alg: key.alg,
        public_jwk: key.publicJwk,
        private_jwk_sealed: key.privateJwkSealed,
        created_at: key.createdAt,
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}
