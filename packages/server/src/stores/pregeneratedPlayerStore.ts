import type { Db } from '../db/database.js';
import { identityRow, type IdentityRecord } from './federationStore.js';
import { prepareQuery } from '../db/preparedQuery.js';
import { affected } from './kyselyResults.js';
import { isUniqueViolation } from './slotStore.js';
import type { Wallet } from './walletStore.js';

export interface PregeneratedPlayersTable {
  user_uuid: number;
  org_id: string;
  client_id: string;
  email: string | null;
  provider: string | null;
  subject: string | null;
  wallet_address: string;
  /** The main wallet's mnemonic (`CustodySeal.sealMnemonic`) until the player sets a PIN; then null. */
  mnemonic_sealed: string | null;
  created_at: number;
  /** When the player proved the e-mail or signed in with the platform identity. */
  claimed_at: number | null;
}

declare module '../db/database.js' {
  interface Database {
    pregenerated_players: PregeneratedPlayersTable;
  }
}

export interface PregeneratedPlayer {
  userUuid: number;
  orgId: string;
  clientId: string;
  email: string | null;
  platform: { provider: string; subject: string } | null;
  walletAddress: string;
  createdAt: number;
  claimedAt: number | undefined;
}

const toPlayer = (r: PregeneratedPlayersTable): PregeneratedPlayer => ({
  userUuid: Number(r.user_uuid),
  orgId: r.org_id,
  clientId: r.client_id,
  email: r.email,
  platform: r.provider !== null && r.subject !== null ? { provider: r.provider, subject: r.subject } : null,
  walletAddress: r.wallet_address,
  createdAt: Number(r.created_at),
  claimedAt: r.claimed_at === null ? undefined : Number(r.claimed_at),
});

/** A new pre-generated player: the account, its counterfactual wallet and, for a platform, the identity. */
export interface NewPregeneratedPlayer {
  userUuid: number;
  nickname: string;
  orgId: string;
  clientId: string;
  email: string | null;
  wallet: Wallet;
  mnemonicSealed: string;
  /** By platform identity: linked at once, so the platform's sign-in finds this account. */
  identity: IdentityRecord | null;
  createdAt: number;
}

/**
 * Pre-generated players (decisions §9, docs/players.md). The account is a `users` row without e-mail
 * or password (no way in at all) until the player comes: by e-mail, a sign-up with that address sets
 * the account's e-mail and password (`claimForSignup`) but signs nothing in until the mailbox is
 * proved; by platform identity, the identity is linked from the start.
 */
export class PregeneratedPlayerStore {
  /** Asked by every sign-in (a sign-in gate): prepared once. */
  readonly #signInStateOf;

  constructor(private readonly db: Db) {
    this.#signInStateOf = prepareQuery(db, (d, userUuid: number) =>
      d
        .selectFrom('pregenerated_players')
        .innerJoin('users', 'users.user_uuid', 'pregenerated_players.user_uuid')
        .select([
          'pregenerated_players.email as email',
          'pregenerated_players.claimed_at as claimed_at',
          'users.email_verified_at as verified',
        ])
        .where('pregenerated_players.user_uuid', '=', userUuid),
    );
  }

  /**
   * Everything in one transaction. 'exists': that e-mail or identity is already pre-generated (read it
   * with `findByEmail`/`findByPlatform`); 'taken': an account already has that e-mail or identity;
   * 'id_taken': the random uuid collided. Nothing is written unless 'created'.
   */
  async create(player: NewPregeneratedPlayer): Promise<'created' | 'exists' | 'taken' | 'id_taken'> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        if (player.email !== null) {
          if (
            await trx
              .selectFrom('pregenerated_players')
              .select('user_uuid')
              .where('email', '=', player.email)
              .executeTakeFirst()
          )
            return 'exists' as const;
          if (
            await trx
              .selectFrom('users')
              .select('user_uuid')
              .where('email', '=', player.email)
              .executeTakeFirst()
          )
            return 'taken' as const;
        }
        if (player.identity !== null) {
          const { provider, subject } = player.identity;
          const pre = await trx
            .selectFrom('pregenerated_players')
            .select('user_uuid')
            .where('provider', '=', provider)
            .where('subject', '=', subject)
            .executeTakeFirst();
          if (pre) return 'exists' as const;
          const linked = await trx
            .selectFrom('federated_identities')
            .select('user_uuid')
            .where('provider', '=', provider)
            .where('subject', '=', subject)
            .executeTakeFirst();
          if (linked) return 'taken' as const;
        }
        await trx
          .insertInto('users')
          .values({
            user_uuid: player.userUuid,
            email: null,
            password_hash: '',
            nickname: player.nickname,
            created_at: player.createdAt,
          })
          .execute();
        const w = player.wallet;
        await trx
          .insertInto('wallets')
          .values({
            address: w.address,
            user_uuid: w.userUuid,
            kind: w.kind,
            salt: w.salt.toString(),
            initial_owner: w.initialOwner,
            owner: w.owner,
            deployed: 0,
            created_at: w.createdAt,
          })
          .execute();
        if (player.identity !== null) {
          await trx.insertInto('federated_identities').values(identityRow(player.identity)).execute();
        }
        await trx
          .insertInto('pregenerated_players')
          .values({
            user_uuid: player.userUuid,
            org_id: player.orgId,
            client_id: player.clientId,
            email: player.email,
            provider: player.identity?.provider ?? null,
            subject: player.identity?.subject ?? null,
            wallet_address: w.address,
            mnemonic_sealed: player.mnemonicSealed,
            created_at: player.createdAt,
          })
          .execute();
        return 'created' as const;
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      if (player.email !== null && (await this.findByEmail(player.email))) return 'exists';
      if (
        player.identity !== null &&
        (await this.findByPlatform(player.identity.provider, player.identity.subject))
      )
        return 'exists';
      return 'id_taken';
    }
  }

  async findByEmail(email: string): Promise<PregeneratedPlayer | undefined> {
    const row = await this.db
      .selectFrom('pregenerated_players')
      .selectAll()
      .where('email', '=', email)
      .executeTakeFirst();
    return row ? toPlayer(row) : undefined;
  }

  async findByPlatform(provider: string, subject: string): Promise<PregeneratedPlayer | undefined> {
    const row = await this.db
      .selectFrom('pregenerated_players')
      .selectAll()
      .where('provider', '=', provider)
      .where('subject', '=', subject)
      .executeTakeFirst();
    return row ? toPlayer(row) : undefined;
  }

  async find(userUuid: number): Promise<PregeneratedPlayer | undefined> {
    const row = await this.db
      .selectFrom('pregenerated_players')
      .selectAll()
      .where('user_uuid', '=', userUuid)
      .executeTakeFirst();
    return row ? toPlayer(row) : undefined;
  }

  /**
   * A sign-up with a pre-generated e-mail: the waiting account takes the e-mail, password hash and
   * nickname, once (only while it has no e-mail). The account's uuid, else undefined (none waits).
   */
  async claimForSignup(
    email: string,
    account: { passwordHash: string; nickname: string },
  ): Promise<number | undefined> {
    const pre = await this.findByEmail(email);
    if (!pre || pre.claimedAt !== undefined) return undefined;
    const result = await this.db
      .updateTable('users')
      .set({ email, password_hash: account.passwordHash, nickname: account.nickname })
      .where('user_uuid', '=', pre.userUuid)
      .where('email', 'is', null)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return affected(result) === 1 ? pre.userUuid : undefined;
  }

  /**
   * Where a sign-in of this account stands (one primary-key read): `none` for an account no studio
   * pre-generated; `awaiting_proof` for one pre-generated by e-mail whose e-mail is not proved yet (no
   * sign-in may open it: a sign-up alone does not prove the address); `unclaimed` before its first
   * sign-in; `claimed` after.
   */
  async signInState(userUuid: number): Promise<'none' | 'awaiting_proof' | 'unclaimed' | 'claimed'> {
    const [row] = (await this.#signInStateOf.run(userUuid)).rows;
    if (!row) return 'none';
    if (row.email !== null && row.verified === null) return 'awaiting_proof';
    return row.claimed_at === null ? 'unclaimed' : 'claimed';
  }

  /** Records the player's arrival (mailbox proof or platform sign-in); false when already recorded. */
  async markClaimed(userUuid: number, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('pregenerated_players')
      .set({ claimed_at: now })
      .where('user_uuid', '=', userUuid)
      .where('claimed_at', 'is', null)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** The sealed mnemonic of the account's pre-generated wallet, while no PIN has taken it over. */
  async sealedMnemonic(userUuid: number): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('pregenerated_players')
      .select('mnemonic_sealed')
      .where('user_uuid', '=', userUuid)
      .executeTakeFirst();
    return row?.mnemonic_sealed ?? undefined;
  }

  /** The PIN custody holds the mnemonic now: this copy goes. */
  async dropMnemonic(userUuid: number, trx: Db = this.db): Promise<void> {
    await trx
      .updateTable('pregenerated_players')
      .set({ mnemonic_sealed: null })
      .where('user_uuid', '=', userUuid)
      .execute();
  }
}
