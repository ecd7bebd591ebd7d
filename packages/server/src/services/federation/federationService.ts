import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { safeEqual } from '../../crypto/constantTime.js';
import type { SecretBox } from '../../crypto/secretBox.js';
import { AppError, conflict, notFound } from '../../errors.js';
import type { Locale } from '../../i18n/locales.js';
import type {
  FederationStore,
  FlowPurpose,
  FlowRecord,
  IdentityRecord,
  TicketPurpose,
} from '../../stores/federationStore.js';
import type { User } from '../../stores/userStore.js';

export type { IdentityRecord };
import { newUserUuid, normaliseEmail } from '../accounts/accountService.js';
import type { ClientDirectory, GuestService } from '../accounts/guestService.js';
import { type SecondFactorGate, type SignIn, singleFactor } from '../mfa/signIn.js';
import { FIRST_PARTY_BINDING, loginBindingFor } from '../oauth/loginBinding.js';
import type { TokenService } from '../tokens/tokenService.js';
import { type PlatformCredential, PlatformBanned, PlatformRejected } from './platform/platformProvider.js';
import type { ProviderRegistry } from './providerRegistry.js';
import {
  type BrowserFlow,
  type UpstreamIdentity,
  type UpstreamProvider,
  UpstreamRejected,
  UpstreamUnavailable,
} from './upstreamProvider.js';

/** A browser has this long between "Continue with …" and the provider's callback. */
export const FLOW_TTL_MS = 10 * 60_000;
/** The console redeems its login ticket within this. */
export const LOGIN_TICKET_TTL_MS = 60_000;
/** A link-by-redirect start URL is good for this long. */
export const LINK_TICKET_TTL_MS = 5 * 60_000;
/** Where a console flow returns, and the only return_to besides an authorize request. */
export const CONSOLE_PATH = '/console';
/**
 * The `auth_time` of a sign-in whose upstream says nothing of when the person proved a credential (oauth2,
 * steam) and whose flow forced no interaction: the epoch, "never proven here", which no step-up accepts.
 */
export const UNPROVEN_AUTH_TIME = 0;

export interface FederationSettings {
  /** PUBLIC_URL: the callback URL each provider is registered with is `{publicUrl}/v1/federation/{id}/callback`. */
  publicUrl: string;
  /** Where a refused or unreachable upstream is reported with its reason (callers get the code only). */
  logger?: Pick<Logger, 'warn'>;
}

interface UserDirectory {
  findUser(userUuid: number): Promise<User | undefined>;
  findUserByEmail(email: string): Promise<User | undefined>;
}

/** What a completed browser flow did. */
export type FlowOutcome =
  /** `authTime`: when the person last proved a credential at the upstream (Unix seconds; see `#authTime`). */
  | { kind: 'signed_in'; userUuid: number; created: boolean; returnTo: string; authTime: number }
  | { kind: 'linked'; userUuid: number; provider: string; returnTo: string };

/** A flow that ended in an error still knows where its browser came from (the console or a login page). */
export class FlowFailed extends Error {
  constructor(
    readonly error: AppError,
    readonly returnTo: string | undefined,
  ) {
    super(error.message);
    this.name = 'FlowFailed';
  }
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const random = () => randomBytes(32).toString('base64url');

const unknownProvider = () => notFound('unknown_provider', 'No identity provider with this id is configured');
const invalidState = () =>
  new AppError(400, 'invalid_state', 'The sign-in is unknown, expired or already used: start again');
const accountExists = () =>
  conflict(
    'account_exists_link_required',
    'An account with this e-mail already exists: sign in to it and link this identity from there',
  );
const identityInUse = () => conflict('identity_in_use', 'This identity is already linked to another account');

/**
 * Sign in with an upstream identity provider, and linking (decisions §8, docs/federation.md "Accounts and
 * linking"). The service owns the flow; each provider only speaks its protocol (`upstreamProvider.ts`).
 *
 * - An identity is (provider id, subject). Its first sign-in creates an account, with the upstream e-mail
 *   only when the upstream verified it; when any account already has that e-mail the answer is 409
 *   `account_exists_link_required` and nothing is created or linked (the pre-hijacking rule,
 *   docs/security.md): only the owner, signed in, links an identity to an existing account.
 * - A browser flow's state is stored as its SHA-256, bound to the browser that started it by the hash of
 *   the flow cookie, and taken once at the callback; the PKCE verifier is sealed at rest.
 */
export class FederationService {
  #secondFactor: SecondFactorGate;

  constructor(
    private readonly store: FederationStore,
    private readonly providers: ProviderRegistry,
    private readonly users: UserDirectory,
    private readonly guests: GuestService,
    private readonly clients: ClientDirectory,
    private readonly tokens: TokenService,
    private readonly secretBox: SecretBox,
    private readonly settings: FederationSettings,
    private readonly now: () => number = Date.now,
  ) {
    this.#secondFactor = singleFactor(tokens);
  }

  /** Where a federated sign-in goes after the upstream (docs/mfa.md): an account with TOTP gets an `mfa_token`. */
  useSecondFactor(gate: SecondFactorGate): void {
    this.#secondFactor = gate;
  }

  /**
   * The identities' provider column for a configured entry, web or platform (`steam` for every Steam
   * entry, whose identities are one SteamID64 whatever the way in), or for that column itself when an
   * entry uses it; undefined when nothing configured proves such identities. Pre-generation by platform
   * identity stores this, so the later sign-in finds it (docs/players.md).
   */
  identityKeyOf(id: string): string | undefined {
    if (this.providers.find(id) || this.providers.findPlatform(id)) return this.providers.identityKey(id);
    const entries = [...this.providers.list(), ...this.providers.listPlatforms()];
    return entries.some((p) => this.providers.identityKey(p.id) === id) ? id : undefined;
  }

  /** The configured providers, for the login page and the console. */
  list(): { id: string; kind: string; name: string }[] {
    return this.providers.list().map((p) => ({ id: p.id, kind: p.kind, name: p.name }));
  }

  callbackUrl(providerId: string): string {
    return `${this.settings.publicUrl}/v1/federation/${providerId}/callback`;
  }

  /**
   * Starts a browser flow: the upstream URL to send the browser to and the flow cookie's value (the
   * browser binding). `returnTo` is checked by the caller (an authorize request, or the console); a link
   * ticket makes it a link flow for the ticket's user, which returns to the console.
   */
  async start(input: {
    providerId: string;
    returnTo: string;
    linkTicket?: string | undefined;
    /** The link binder cookie of this browser (`linkUrl`): a link ticket starts only with its own. */
    linkBinder?: string | undefined;
    /** A step-up: the upstream must authenticate the user again (BrowserFlow.reauthenticateSince). */
    reauthenticate?: boolean | undefined;
  }): Promise<{ url: URL; cookie: string }> {
    const provider = this.#provider(input.providerId);
    let linkUserUuid: number | undefined;
    let returnTo = input.returnTo;
    if (input.linkTicket !== undefined) {
      linkUserUuid = await this.#takeLinkTicket(input.linkTicket, input.linkBinder, provider.id);
      returnTo = CONSOLE_PATH;
    }
    const now = this.now();
    const purpose: FlowPurpose =
      linkUserUuid !== undefined ? 'link' : input.reauthenticate ? 'reauthenticate' : 'sign_in';
    const flow: BrowserFlow = {
      state: random(),
      nonce: random(),
      codeVerifier: random(),
      callbackUrl: this.callbackUrl(provider.id),
      ...(purpose === 'reauthenticate' ? { reauthenticateSince: now } : {}),
    };
    const cookie = random();
    let url: URL;
    try {
      url = await provider.authorizationUrl(flow);
    } catch (err) {
      this.#report(provider.id, err);
      throw new FlowFailed(upstreamError(err), returnTo);
    }
    await this.store.saveFlow({
      stateHash: sha256(flow.state),
      provider: provider.id,
      purpose,
      linkUserUuid,
      returnTo,
      browserHash: sha256(cookie),
      nonce: flow.nonce,
      codeVerifierSealed: this.secretBox.seal(flow.codeVerifier, verifierAad(flow.state)),
      createdAt: now,
      expiresAt: now + FLOW_TTL_MS,
    });
    return { url, cookie };
  }

  /**
   * The provider's callback: the flow its `state` names, taken once; the browser must be the one that
   * started it (the flow cookie); then the provider checks the upstream's answer, and the flow signs in
   * (or creates) the account, or links the identity to the flow's user. Throws `FlowFailed`.
   */
  async complete(input: {
    providerId: string;
    params: URLSearchParams;
    cookie: string | undefined;
    /** The browser's language: an account this creates keeps it for its mails. */
    locale?: Locale | undefined;
  }): Promise<FlowOutcome> {
    const provider = this.#provider(input.providerId);
    const state = input.params.get('state');
    if (!state || state.length > 200) throw new FlowFailed(invalidState(), undefined);
    const flow = await this.store.takeFlow(sha256(state));
    if (!flow || flow.provider !== provider.id || flow.expiresAt <= this.now()) {
      throw new FlowFailed(invalidState(), flow?.returnTo);
    }
    if (input.cookie === undefined || !safeEqual(sha256(input.cookie), flow.browserHash)) {
      throw new FlowFailed(
        new AppError(
          400,
          'flow_browser_mismatch',
          'This sign-in was started in another browser: start again here',
        ),
        flow.returnTo,
      );
    }
    try {
      const identity = await provider.completeBrowserFlow(input.params, this.#browserFlow(state, flow));
      if (flow.purpose === 'link' && flow.linkUserUuid !== undefined) {
        await this.link(flow.linkUserUuid, provider.id, identity);
        return {
          kind: 'linked',
          userUuid: flow.linkUserUuid,
          provider: provider.id,
          returnTo: flow.returnTo,
        };
      }
      const { userUuid, created } = await this.signInOrCreate(provider.id, identity, input.locale);
      const authTime = this.#authTime(identity, flow.purpose === 'reauthenticate');
      return { kind: 'signed_in', userUuid, created, returnTo: flow.returnTo, authTime };
    } catch (err) {
      if (err instanceof AppError) throw new FlowFailed(err, flow.returnTo);
      this.#report(provider.id, err);
      throw new FlowFailed(upstreamError(err), flow.returnTo);
    }
  }

  /**
   * The native flow (`POST /v1/dev-user/federated-login`): an upstream id_token for the provider's client
   * ids, accepted once (401 `id_token_replayed`), then the same sign-in or creation as the browser flow;
   * the login JWT is bound like a password login (`client_id`, or the console's first-party binding) and
   * its `auth_time` is the id_token's (`auth_time`, else `iat`), never the moment it reached us.
   */
  async nativeLogin(input: {
    providerId: string;
    idToken: string;
    clientId: string | undefined;
    /** The request's language (`Accept-Language`): an account this creates keeps it for its mails. */
    locale?: Locale | undefined;
  }): Promise<SignIn & { created: boolean }> {
    return this.#nativeSignIn(
      input.providerId,
      input.clientId,
      () => this.#verifyIdToken(input.providerId, input.idToken),
      input.locale,
    );
  }

  /**
   * The native sign-ins' common part: the binding checked before the upstream is asked, the identity's
   * account (found or created), then the second step with the credential's own authentication time.
   */
  async #nativeSignIn(
    providerId: string,
    clientId: string | undefined,
    verify: () => Promise<UpstreamIdentity>,
    locale: Locale | undefined,
  ): Promise<SignIn & { created: boolean }> {
    const binding = await loginBindingFor(this.clients, clientId);
    const identity = await verify();
    const { userUuid, created } = await this.signInOrCreate(providerId, identity, locale);
    const signIn = await this.#secondFactor.signIn({
      userUuid,
      authTime: this.#authTime(identity, false),
      amr: ['fed'],
      clientId: binding.clientId,
    });
    return { ...signIn, created };
  }

  /**
   * The account of an identity; a first sign-in creates it (see the class comment), in `locale` (the
   * language of its mails) when known.
   */
  async signInOrCreate(
    providerId: string,
    upstream: UpstreamIdentity,
    locale?: Locale | undefined,
  ): Promise<{ userUuid: number; created: boolean }> {
    providerId = this.providers.identityKey(providerId);
    const existing = await this.store.findIdentity(providerId, upstream.subject);
    if (existing) {
      await this.store.touchIdentity(existing.id, this.now());
      return { userUuid: existing.userUuid, created: false };
    }
    const email = upstream.email === null ? null : normaliseEmail(upstream.email);
    // Verified or not, an upstream e-mail that is an account's here never opens or joins that account.
    if (email !== null && (await this.users.findUserByEmail(email))) throw accountExists();
    for (let attempt = 0; attempt < 5; attempt++) {
      const now = this.now();
      const userUuid = newUserUuid();
      const outcome = await this.store.createAccount(
        {
          userUuid,
          email: upstream.emailVerified ? email : null,
          nickname: nicknameOf(upstream),
          createdAt: now,
          locale,
        },
        this.#identity(providerId, upstream, userUuid, now),
      );
      if (outcome === 'created') return { userUuid, created: true };
      if (outcome === 'email_taken') throw accountExists();
      if (outcome === 'identity_taken') {
        // A concurrent first sign-in with the same identity won: this one signs in to that account.
        const winner = await this.store.findIdentity(providerId, upstream.subject);
        if (winner) return { userUuid: winner.userUuid, created: false };
      }
    }
    throw new AppError(500, 'internal_error', 'Could not allocate a user id');
  }

  /**
   * Links an identity to a signed-in user. Already this user's: answered as it is. Another user's: 409
   * `identity_in_use`. A guest upgrades by it (same uuid, wallet and slots; the guest secret dies; the
   * upstream e-mail is set only when verified and free). An existing account's e-mail never changes.
   */
  async link(userUuid: number, providerId: string, upstream: UpstreamIdentity): Promise<IdentityRecord> {
    providerId = this.providers.identityKey(providerId);
    const existing = await this.store.findIdentity(providerId, upstream.subject);
    if (existing) {
      if (existing.userUuid === userUuid) return existing;
      throw identityInUse();
    }
    if (!(await this.users.findUser(userUuid)))
      throw new AppError(401, 'invalid_token', 'The token names no user');
    const now = this.now();
    const identity = this.#identity(providerId, upstream, userUuid, now);
    if (await this.guests.isGuest(userUuid)) {
      const email = upstream.email === null ? null : normaliseEmail(upstream.email);
      const free = email !== null && upstream.emailVerified && !(await this.users.findUserByEmail(email));
      await this.guests.upgrade(userUuid, { kind: 'identity', identity, email: free ? email : null, now });
      return identity;
    }
    if (!(await this.store.linkIdentity(identity))) throw identityInUse();
    return identity;
  }

  /** Links by an upstream id_token (`POST /v1/dev-user/identities`). */
  async linkIdToken(userUuid: number, providerId: string, idToken: string): Promise<IdentityRecord> {
    return this.link(userUuid, providerId, await this.#verifyIdToken(providerId, idToken));
  }

  /**
   * A start URL that links the identity the browser signs in with to `userUuid` (one use, 5 minutes), and
   * its binder: the caller sets it as a cookie on the asking browser, and the start accepts the ticket
   * only with it (decisions §9: linking happens in the account's own browser). The ticket keeps only the
   * binder's hash.
   */
  async linkUrl(userUuid: number, providerId: string): Promise<{ url: string; binder: string }> {
    const provider = this.#provider(providerId);
    const binder = random();
    const ticket = await this.#issueTicket('link', userUuid, LINK_TICKET_TTL_MS, {
      provider: provider.id,
      binderHash: sha256(binder),
    });
    return {
      url: `${this.settings.publicUrl}/v1/federation/${provider.id}/start?link_ticket=${ticket}`,
      binder,
    };
  }

  /**
   * The console's one-time login ticket (60 s) for a user the browser flow signed in; `authTime` (Unix
   * seconds, the outcome's) becomes the login JWT's.
   */
  consoleTicket(userUuid: number, created: boolean, authTime: number): Promise<string> {
    return this.#issueTicket('console_login', userUuid, LOGIN_TICKET_TTL_MS, { created, authTime });
  }

  /**
   * Redeems a console login ticket: a login JWT bound to the console (`dauth:console`), or for an account
   * with TOTP the `mfa_token` of its second step.
   */
  async redeemConsoleTicket(ticket: string): Promise<SignIn & { created: boolean }> {
    const record = await this.#takeTicket(ticket, 'console_login');
    if (!record) {
      throw new AppError(401, 'invalid_login_ticket', 'The login ticket is unknown, expired or already used');
    }
    const signIn = await this.#secondFactor.signIn({
      userUuid: record.userUuid,
      authTime: record.authTime ?? UNPROVEN_AUTH_TIME,
      amr: ['fed'],
      clientId: FIRST_PARTY_BINDING,
    });
    return { ...signIn, created: record.created };
  }

  listIdentities(userUuid: number): Promise<IdentityRecord[]> {
    return this.store.listIdentities(userUuid);
  }

  /** The provider's display name for an identity (the provider may have left the configuration). */
  providerName(providerId: string): string {
    return this.providers.nameOfIdentityKey(providerId);
  }

  /** The platform kinds configured for sign-in inside the game (docs/federation.md "Platform sign-in"). */
  listPlatforms(): { id: string; kind: string; name: string }[] {
    return this.providers.listPlatforms().map((p) => ({ id: p.id, kind: p.kind, name: p.name }));
  }

  /**
   * Platform sign-in inside the game (`POST /v1/dev-user/platform-login`, decisions §9): the platform
   * kind checks the credential with its platform (401 `platform_rejected`, 403 `platform_banned`), then
   * the same sign-in or creation as `federated-login` (§8: never linked automatically), bound like a
   * password login, with the second step for an account with TOTP and the credential's own
   * authentication time (unproven when the platform says none).
   */
  async platformLogin(input: {
    providerId: string;
    credential: PlatformCredential;
    clientId: string | undefined;
    /** The request's language (`Accept-Language`): an account this creates keeps it for its mails. */
    locale?: Locale | undefined;
  }): Promise<SignIn & { created: boolean }> {
    return this.#nativeSignIn(
      input.providerId,
      input.clientId,
      () => this.#verifyPlatform(input.providerId, input.credential),
      input.locale,
    );
  }

  /** Links a platform identity by its credential (`POST /v1/dev-user/identities` with `credential`). */
  async linkPlatform(
    userUuid: number,
    providerId: string,
    credential: PlatformCredential,
  ): Promise<IdentityRecord> {
    return this.link(userUuid, providerId, await this.#verifyPlatform(providerId, credential));
  }

  async #verifyPlatform(providerId: string, credential: PlatformCredential): Promise<UpstreamIdentity> {
    const platform = this.providers.findPlatform(providerId);
    if (!platform) {
      if (this.providers.find(providerId))
        throw new AppError(
          400,
          'platform_unsupported',
          'This provider is not a platform kind: use federated-login or the browser flow',
        );
      throw unknownProvider();
    }
    try {
      return await platform.verify(credential);
    } catch (err) {
      if (err instanceof PlatformRejected) {
        this.settings.logger?.warn(
          { provider: platform.id, reason: err.reason },
          'platform credential refused',
        );
        throw new AppError(401, 'platform_rejected', `${platform.name} refused the credential`, {
          provider: platform.id,
        });
      }
      if (err instanceof PlatformBanned) {
        this.settings.logger?.warn({ provider: platform.id, reason: err.reason }, 'platform account banned');
        throw new AppError(403, 'platform_banned', `This ${platform.name} account is banned`, {
          provider: platform.id,
          reason: err.reason,
        });
      }
      this.#report(platform.id, err);
      throw upstreamError(err);
    }
  }

  /** Unlinks one of the user's identities, never the last way into the account. */
  async unlink(userUuid: number, id: string): Promise<void> {
    const outcome = await this.store.removeIdentity(userUuid, id);
    if (outcome === 'not_found')
      throw notFound('identity_not_found', 'You have no linked identity with this id');
    if (outcome === 'last') {
      throw conflict(
        'last_sign_in_method',
        'This identity is the only way into the account: set a password, add a passkey or link another identity first',
      );
    }
  }

  #provider(providerId: string): UpstreamProvider {
    const provider = this.providers.find(providerId);
    if (!provider) throw unknownProvider();
    return provider;
  }

  async #verifyIdToken(providerId: string, idToken: string): Promise<UpstreamIdentity> {
    const platform = this.providers.findPlatform(providerId);
    if (platform) {
      throw new AppError(
        400,
        'id_token_unsupported',
        `${platform.name} is a platform kind: send its credential to platform-login (or as credential to link)`,
      );
    }
    const provider = this.#provider(providerId);
    if (!provider.verifyIdToken) {
      throw new AppError(
        400,
        'id_token_unsupported',
        `${provider.name} issues no id_token: use the browser flow`,
      );
    }
    try {
      return await provider.verifyIdToken(idToken);
    } catch (err) {
      this.#report(provider.id, err);
      if (err instanceof UpstreamRejected && err.reason === 'replayed') {
        throw new AppError(401, 'id_token_replayed', 'This id_token was already used: get a new one');
      }
      if (err instanceof UpstreamRejected) {
        throw new AppError(
          401,
          'invalid_id_token',
          'The id_token was refused (signature, issuer, audience or expiry)',
        );
      }
      throw upstreamError(err);
    }
  }

  /** An upstream's refusal or outage, with its reason, for the operator (never a token or code). */
  #report(providerId: string, err: unknown): void {
    if (err instanceof UpstreamRejected) {
      this.settings.logger?.warn({ provider: providerId, reason: err.reason }, 'upstream answer refused');
    } else if (err instanceof UpstreamUnavailable) {
      this.settings.logger?.warn({ provider: providerId, err: err.message }, 'identity provider unavailable');
    }
  }

  #browserFlow(state: string, flow: FlowRecord): BrowserFlow {
    const verifier = this.secretBox.open(flow.codeVerifierSealed, verifierAad(state));
    try {
      return {
        state,
        nonce: flow.nonce,
        codeVerifier: verifier.toString('utf8'),
        callbackUrl: this.callbackUrl(flow.provider),
        ...(flow.purpose === 'reauthenticate' ? { reauthenticateSince: flow.createdAt } : {}),
      };
    } finally {
      verifier.fill(0);
    }
  }

  #identity(providerId: string, upstream: UpstreamIdentity, userUuid: number, now: number): IdentityRecord {
    return {
      id: `fid_${randomBytes(16).toString('hex')}`,
      provider: providerId,
      subject: upstream.subject,
      userUuid,
      email: upstream.email === null ? null : normaliseEmail(upstream.email),
      emailVerified: upstream.emailVerified,
      displayName: upstream.displayName,
      createdAt: now,
      lastUsedAt: now,
    };
  }

  /**
   * When the person last proved a credential (the login JWT's `auth_time`, Unix seconds): what the
   * upstream says (an id_token's `auth_time` or `iat`); a kind that says nothing counts as a new sign-in
   * only when the flow forced an interaction (`reauthenticate`: Discord's approval page, Steam's button),
   * else it is unproven and passes no step-up (docs/federation.md, "Authentication time").
   */
  #authTime(identity: UpstreamIdentity, forcedInteraction: boolean): number {
    if (identity.authTime !== undefined) return identity.authTime;
    return forcedInteraction ? Math.floor(this.now() / 1000) : UNPROVEN_AUTH_TIME;
  }

  /**
   * A link start's ticket: known, unexpired, for this provider (else back to the console with
   * `invalid_link_ticket`) and asked for by this browser (its binder cookie, compared in constant time).
   * A browser without the binder gets the error page and the ticket stays for its owner: whoever merely
   * sees the URL can neither use nor spend it (docs/federation.md, "Linking").
   */
  async #takeLinkTicket(ticket: string, binder: string | undefined, providerId: string): Promise<number> {
    const invalid = () =>
      new FlowFailed(
        new AppError(400, 'invalid_link_ticket', 'The link request is unknown, expired or already used'),
        CONSOLE_PATH,
      );
    if (ticket.length === 0 || ticket.length > 200) throw invalid();
    const ticketHash = sha256(ticket);
    const record = await this.store.findTicket(ticketHash, 'link');
    if (!record || record.expiresAt <= this.now() || record.provider !== providerId) throw invalid();
    const bound =
      binder !== undefined &&
      binder.length <= 200 &&
      record.binderHash !== undefined &&
      safeEqual(sha256(binder), record.binderHash);
    if (!bound) {
      throw new FlowFailed(
        new AppError(
          400,
          'link_browser_mismatch',
          'This link was asked for in another browser: nothing was linked. Sign in to your account here and link from its page',
        ),
        undefined,
      );
    }
    const taken = await this.store.takeTicket(ticketHash, 'link');
    if (!taken) throw invalid();
    return taken.userUuid;
  }

  async #issueTicket(
    purpose: TicketPurpose,
    userUuid: number,
    ttlMs: number,
    extra: {
      provider?: string;
      created?: boolean;
      binderHash?: string;
      authTime?: number;
    },
  ): Promise<string> {
    const ticket = random();
    const now = this.now();
    await this.store.saveTicket(
      {
        ticketHash: sha256(ticket),
        purpose,
        userUuid,
        provider: extra.provider,
        created: extra.created ?? false,
        expiresAt: now + ttlMs,
        binderHash: extra.binderHash,
        authTime: extra.authTime,
      },
      now,
    );
    return ticket;
  }

  async #takeTicket(ticket: string, purpose: TicketPurpose) {
    if (ticket.length === 0 || ticket.length > 200) return undefined;
    const record = await this.store.takeTicket(sha256(ticket), purpose);
    return record && record.expiresAt > this.now() ? record : undefined;
  }
}

/** The seal of a flow's PKCE verifier is bound to its state: it opens for that flow only. */
const verifierAad = (state: string) => `federation_flow:${sha256(state)}:code_verifier`;

function upstreamError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof UpstreamRejected) {
    return new AppError(401, 'upstream_rejected', 'The identity provider’s answer was refused');
  }
  if (err instanceof UpstreamUnavailable) {
    return new AppError(
      503,
      'provider_unavailable',
      'The identity provider cannot be reached; try again later',
    );
  }
  throw err;
}

function nicknameOf(upstream: UpstreamIdentity): string {
  const name = upstream.displayName ?? upstream.email?.split('@')[0] ?? 'player';
  return name.trim().slice(0, 100) || 'player';
}
