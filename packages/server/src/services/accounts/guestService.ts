import { randomBytes } from 'node:crypto';
import type { PasswordHasher } from '../../crypto/passwordHasher.js';
import { KeyedFingerprint } from '../../crypto/keyedFingerprint.js';
import { AppError, conflict } from '../../errors.js';
import type { Locale } from '../../i18n/locales.js';
import type { GuestStore, GuestUpgrade } from '../../stores/guestStore.js';
import type { TokenService } from '../tokens/tokenService.js';
import type { PasswordStrength } from '../defense/passwordStrength.js';
import { checkedCredentials, newUserUuid, nicknameFor } from './accountService.js';

/** The bits of a guest secret: far beyond any online or offline search. */
const SECRET_BYTES = 32;
const GUEST_NICKNAME = 'guest';

export interface GuestSession {
  token: string;
  uuid: string;
  expiresIn: number;
}

/** Where guests' apps are looked up (the client service). */
export interface ClientDirectory {
  findClient(clientId: string): Promise<{ clientId: string } | undefined>;
}

const wrongSecret = () => new AppError(401, 'invalid_credentials', 'uuid or guest_secret is wrong');

/**
 * Guest accounts (decisions §8, docs/players.md): a real account (wallet, PIN, slots) that a game
 * creates for a player without asking anything, reached with a device-held secret until the player
 * upgrades it to e-mail and password or a passkey, keeping the same uuid.
 *
 * The secret is 256 random bits, so it is stored as a keyed HMAC-SHA256 rather than a slow password
 * hash: stretching only helps against guessing low-entropy inputs, and 2^256 candidates need no help;
 * the MASTER_KEY-derived key means a leaked table alone cannot even be checked against. One HMAC per
 * sign-in keeps guest logins cheap for a game's whole player base.
 */
export class GuestService {
  readonly #fingerprint: KeyedFingerprint;
  /** Compared against when the uuid is not a guest, so both answers take the same work. */
  readonly #dummyHash: string;

  constructor(
    private readonly guests: GuestStore,
    private readonly tokens: TokenService,
    private readonly passwords: PasswordHasher,
    private readonly clients: ClientDirectory,
    masterKey: Buffer,
    /** Refuses weak passwords at a guest's upgrade, as at sign-up. */
    private readonly strength?: PasswordStrength,
  ) {
    this.#fingerprint = new KeyedFingerprint(masterKey, 'dauth/guest-secret/v1');
    this.#dummyHash = this.#fingerprint.of('0:', randomBytes(SECRET_BYTES));
  }

  /**
   * A new guest of `clientId`: its uuid, the secret (shown this once) and a login JWT bound to the app.
   * `locale`: the language of the request (`Accept-Language`), the account's once it has an address.
   */
  async create(clientId: string, locale?: Locale): Promise<GuestSession & { guestSecret: string }> {
    if (!(await this.clients.findClient(clientId))) {
      throw new AppError(400, 'invalid_request', 'client_id names no app', { field: 'client_id' });
    }
    const secret = randomBytes(SECRET_BYTES).toString('base64url');
    for (let attempt = 0; attempt < 5; attempt++) {
      const userUuid = newUserUuid();
      const created = await this.guests.create(
        {
          userUuid,
          secretHash: this.#hash(userUuid, secret),
          clientId,
          createdAt: Date.now(),
        },
        GUEST_NICKNAME,
        locale ?? null,
      );
      if (created) return { ...(await this.#session(userUuid, clientId)), guestSecret: secret };
    }
    throw new AppError(500, 'internal_error', 'Could not allocate a user id');
  }

  /** Signs a guest in with its secret (constant time, and the same work whether the uuid exists). */
  async login(uuid: string, secret: string): Promise<GuestSession> {
    const userUuid = /^\d{1,16}$/.test(uuid) ? Number(uuid) : undefined;
    const guest = userUuid === undefined ? undefined : await this.guests.find(userUuid);
    const ok = this.#fingerprint.matches(
      guest?.secretHash ?? this.#dummyHash,
      `${userUuid ?? 0}:`,
      Buffer.from(secret, 'utf8'),
    );
    if (!guest || !ok) throw wrongSecret();
    return this.#session(guest.userUuid, guest.clientId);
  }

  async isGuest(userUuid: number): Promise<boolean> {
    return (await this.guests.find(userUuid)) !== undefined;
  }

  /** Upgrade by e-mail and password: same uuid, wallet and slots; the guest secret dies. */
  async upgradeWithPassword(
    userUuid: number,
    input: { email: string; password: string; nickname?: string | undefined },
  ): Promise<void> {
    const email = checkedCredentials(input.email, input.password);
    if (!(await this.isGuest(userUuid))) throw notGuest();
    await this.strength?.check(input.password, [email, input.nickname]);
    const passwordHash = await this.passwords.hash(input.password);
    await this.upgrade(userUuid, {
      kind: 'password',
      email,
      passwordHash,
      nickname: nicknameFor(email, input.nickname),
    });
  }

  /** Applies an upgrade atomically (the passkey service calls it with the guest's first passkey). */
  async upgrade(userUuid: number, change: GuestUpgrade): Promise<void> {
    const outcome = await this.guests.upgrade(userUuid, change);
    if (outcome === 'email_taken')
      throw conflict('email_taken', 'An account with this e-mail already exists');
    if (outcome === 'not_guest') throw notGuest();
    if (outcome === 'identity_taken')
      throw conflict('identity_in_use', 'This identity is already linked to an account');
  }

  async #session(userUuid: number, clientId: string): Promise<GuestSession> {
    // `swk`: the guest secret is a key the game's software keeps on the device (docs/mfa.md).
    const { token, expiresIn } = await this.tokens.issueLoginToken(String(userUuid), {
      clientId,
      amr: ['swk'],
    });
    return { token, uuid: String(userUuid), expiresIn };
  }

  #hash(userUuid: number, secret: string): string {
    return this.#fingerprint.of(`${userUuid}:`, Buffer.from(secret, 'utf8'));
  }
}

const notGuest = () => conflict('not_guest', 'This account is not a guest account (already upgraded?)');
