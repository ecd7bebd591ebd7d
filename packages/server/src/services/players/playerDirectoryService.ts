import { AppError, invalidField } from '../../errors.js';
import type {
  PlayerConsumption,
  PlayerDirectoryStore,
  PlayerPurchase,
  PlayerRow,
} from '../../stores/playerDirectoryStore.js';
import type { SessionKeyRecord, SessionKeyState } from '../../stores/sessionKeyStore.js';
import type { Slot } from '../../stores/slotStore.js';
import { normaliseEmail } from '../accounts/accountService.js';

export const MAX_PLAYERS_PAGE = 200;
export const DEFAULT_PLAYERS_PAGE = 50;
const MAX_PURCHASES = 100;

/** One player as the directory shows them. `email` only where a grant of theirs has the `email` scope. */
export interface DirectoryPlayer {
  userId: string;
  createdAt: number;
  lastSeenAt: number;
  guest: boolean;
  walletAddress: string | null;
  email?: string;
}

export interface PlayerDetail extends DirectoryPlayer {
  slots: Pick<Slot, 'id' | 'contentAddress' | 'tokenNickname' | 'metaIdx' | 'state' | 'createdAt'>[];
  purchases: PlayerPurchase[];
  consumption: PlayerConsumption[];
  sessionKeys: Pick<
    SessionKeyRecord,
    'keyAddress' | 'accountAddress' | 'validUntil' | 'state' | 'createdAt'
  >[];
}

export const playerNotFound = () =>
  new AppError(404, 'player_not_found', 'No player with this user_id has granted this app');

/** What the directory reads beyond its own store: the other domains' records of a player. */
export interface PlayerDirectoryPorts {
  store: PlayerDirectoryStore;
  slots: { listByOwner(ownerUuid: number, clientId?: string): Promise<Slot[]> };
  sessionKeys: {
    keysOf(userUuid: number, clientId: string, states: SessionKeyState[]): Promise<SessionKeyRecord[]>;
  };
  /** Ends the player's grant for the app, as a player's own revocation does (tokens, webhooks, consent). */
  grants: {
    revokeUserClientGrants(userUuid: number, clientId: string, reason: string): Promise<number>;
    withdrawConsent(userUuid: number, clientId: string): Promise<boolean>;
  };
}

const CURSOR_PREFIX = 'p1.';
const encodeCursor = (uuid: number) => CURSOR_PREFIX + Buffer.from(String(uuid)).toString('base64url');
function decodeCursor(cursor: string): number {
  const text = cursor.startsWith(CURSOR_PREFIX)
    ? Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString('utf8')
    : '';
  if (!/^\d{1,16}$/.test(text)) throw invalidField('cursor', 'cursor is not one this directory gave');
  return Number(text);
}

/** What `q` names: a uuid, a wallet address or an e-mail. */
type Search =
  { kind: 'uuid'; uuid: number } | { kind: 'wallet'; address: string } | { kind: 'email'; email: string };

function parseSearch(q: string, checksum: (address: string) => string): Search {
  const text = q.trim();
  if (/^\d{1,16}$/.test(text)) return { kind: 'uuid', uuid: Number(text) };
  if (/^0x[0-9a-fA-F]{40}$/.test(text)) return { kind: 'wallet', address: checksum(text) };
  if (text.includes('@') && text.length <= 320) return { kind: 'email', email: normaliseEmail(text) };
  throw invalidField('q', 'q must be a user_id, a wallet address (0x…) or an e-mail');
}

/**
 * The players directory of an app (decisions §9, docs/players.md): the players holding a live grant,
 * in a stable order (their uuid) with an opaque cursor, searchable by uuid, wallet address and e-mail
 * (the e-mail only matches, and only shows, where a grant of the player carries the `email` scope); a
 * player's detail; and revoking a player's grant. The caller (the route) has checked the org role or
 * the service account's scope.
 */
export class PlayerDirectoryService {
  constructor(
    private readonly ports: PlayerDirectoryPorts,
    private readonly checksum: (address: string) => string,
  ) {}

  async list(
    clientId: string,
    input: { limit?: number | undefined; cursor?: string | undefined; q?: string | undefined },
  ): Promise<{ players: DirectoryPlayer[]; nextCursor: string | undefined }> {
    const limit = input.limit ?? DEFAULT_PLAYERS_PAGE;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PLAYERS_PAGE) {
      throw invalidField('limit', `limit must be 1 to ${MAX_PLAYERS_PAGE}`);
    }
    const afterUuid = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
    let rows: PlayerRow[];
    let search: Search | undefined;
    if (input.q !== undefined && input.q.trim() !== '') {
      search = parseSearch(input.q, this.checksum);
      const uuid = await this.#resolve(search);
      rows =
        uuid === undefined || (afterUuid !== undefined && uuid <= afterUuid)
          ? []
          : await this.ports.store.players(clientId, { userUuid: uuid, limit: 1 });
      // An e-mail finds only a player who let the app see it.
      if (search.kind === 'email') rows = rows.filter((r) => r.emailScope);
    } else {
      rows = await this.ports.store.players(clientId, { afterUuid, limit: limit + 1 });
    }
    const more = rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    const players = await this.#withProfiles(page);
    return { players, nextCursor: more ? encodeCursor(page[page.length - 1]!.userUuid) : undefined };
  }

  async detail(clientId: string, userUuid: number): Promise<PlayerDetail> {
    const [row] = await this.ports.store.players(clientId, { userUuid, limit: 1 });
    if (!row) throw playerNotFound();
    const [player] = await this.#withProfiles([row]);
    const [slots, purchases, consumption, keys] = await Promise.all([
      this.ports.slots.listByOwner(userUuid, clientId),
      this.ports.store.purchases(clientId, userUuid, MAX_PURCHASES),
      this.ports.store.consumption(clientId, userUuid),
      this.ports.sessionKeys.keysOf(userUuid, clientId, ['pending', 'active', 'revoking']),
    ]);
    return {
      ...player!,
      slots: slots.map((s) => ({
        id: s.id,
        contentAddress: s.contentAddress,
        tokenNickname: s.tokenNickname,
        metaIdx: s.metaIdx,
        state: s.state,
        createdAt: s.createdAt,
      })),
      purchases,
      consumption,
      sessionKeys: keys.map((k) => ({
        keyAddress: k.keyAddress,
        accountAddress: k.accountAddress,
        validUntil: k.validUntil,
        state: k.state,
        createdAt: k.createdAt,
      })),
    };
  }

  /**
   * Ends the player's grant for the app: the login page's consent is withdrawn and every grant revoked
   * (every access and refresh token, on every replica, with the `grant.revoked` webhook), as when the
   * player revokes the app themselves. 404 `player_not_found` when they hold none.
   */
  async revoke(clientId: string, userUuid: number): Promise<{ revokedGrants: number }> {
    const [row] = await this.ports.store.players(clientId, { userUuid, limit: 1 });
    if (!row) throw playerNotFound();
    await this.ports.grants.withdrawConsent(userUuid, clientId);
    const revokedGrants = await this.ports.grants.revokeUserClientGrants(
      userUuid,
      clientId,
      'studio_revoked',
    );
    return { revokedGrants };
  }

  async #resolve(search: Search): Promise<number | undefined> {
    if (search.kind === 'uuid') return search.uuid;
    if (search.kind === 'wallet') return this.ports.store.userByWallet(search.address);
    return this.ports.store.userByEmail(search.email);
  }

  async #withProfiles(rows: PlayerRow[]): Promise<DirectoryPlayer[]> {
    const profiles = await this.ports.store.profiles(rows.map((r) => r.userUuid));
    return rows.map((r) => {
      const profile = profiles.get(r.userUuid);
      return {
        userId: String(r.userUuid),
        createdAt: r.createdAt,
        lastSeenAt: r.lastSeenAt,
        guest: profile?.guest ?? false,
        walletAddress: profile?.walletAddress ?? null,
        ...(r.emailScope && profile?.email ? { email: profile.email } : {}),
      };
    });
  }
}
