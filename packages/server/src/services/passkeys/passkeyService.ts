import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { loginBindingFor } from '../oauth/loginBinding.js';
import { AppError, notFound } from '../../errors.js';
import type { ChallengePurpose, PasskeyRecord, PasskeyStore } from '../../stores/passkeyStore.js';
import type { User } from '../../stores/userStore.js';
import type { ClientDirectory, GuestService } from '../accounts/guestService.js';
import { issueSignIn, type SecondFactorGate, type SignIn, singleFactor } from '../mfa/signIn.js';
import type { TokenService } from '../tokens/tokenService.js';

/** Each challenge is single-use and lives this long (decisions §8). */
export const CHALLENGE_TTL_MS = 5 * 60_000;

export interface PasskeySettings {
  rpId: string;
  rpName: string;
  origins: string[];
}

interface UserDirectory {
  findUser(userUuid: number): Promise<User | undefined>;
}

const refused = (message: string) => new AppError(401, 'passkey_refused', message);

/**
 * Passkeys (WebAuthn, decisions §8, docs/players.md). Challenges are stored in the database (shared by
 * every replica) and taken once by a conditional delete before the response is verified, so a replayed
 * or concurrent second use finds nothing. Sign-in is by discoverable credential: the options name no
 * user, the authenticator answers with the credential id and the user handle.
 */
export class PasskeyService {
  #secondFactor: SecondFactorGate;

  constructor(
    private readonly store: PasskeyStore,
    private readonly users: UserDirectory,
    private readonly guests: GuestService,
    private readonly clients: ClientDirectory,
    private readonly tokens: TokenService,
    private readonly settings: PasskeySettings,
    /** Linked upstream identities are ways in too (docs/federation.md); absent: none are counted. */
    private readonly identities: { hasIdentity(userUuid: number): Promise<boolean> } = {
      hasIdentity: async () => false,
    },
  ) {
    this.#secondFactor = singleFactor(tokens);
  }

  /** Where a passkey sign-in without user verification goes (docs/mfa.md): one factor, like a password. */
  useSecondFactor(gate: SecondFactorGate): void {
    this.#secondFactor = gate;
  }

  async registrationOptions(userUuid: number): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const user = await this.users.findUser(userUuid);
    if (!user) throw new AppError(401, 'invalid_token', 'The token names no user');
    const existing = await this.store.listForUser(userUuid);
    const options = await generateRegistrationOptions({
      rpName: this.settings.rpName,
      rpID: this.settings.rpId,
      userName: user.email ?? `${user.nickname} ${userUuid}`,
      userDisplayName: user.nickname,
      userID: new TextEncoder().encode(String(userUuid)),
      attestationType: 'none',
      timeout: CHALLENGE_TTL_MS,
      excludeCredentials: existing.map((p) => ({ id: p.id, transports: transportsOf(p) })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    await this.#remember(options.challenge, 'register', userUuid);
    return options;
  }

  /** Verifies a registration response against the user's own unused challenge; stores the passkey. */
  async register(
    userUuid: number,
    response: RegistrationResponseJSON,
    options: { upgradeGuest?: boolean } = {},
  ): Promise<PasskeyRecord> {
    await this.#take(challengeOf(response.response.clientDataJSON), 'register', userUuid);
    let verified;
    try {
      verified = await verifyRegistrationResponse({
        response,
        expectedChallenge: () => true, // taken above: it is this user's, unused and unexpired
        expectedOrigin: this.settings.origins,
        expectedRPID: this.settings.rpId,
        requireUserVerification: false,
      });
    } catch (err) {
      throw new AppError(400, 'passkey_refused', `The registration was refused: ${(err as Error).message}`);
    }
    if (!verified.verified) throw new AppError(400, 'passkey_refused', 'The registration was refused');
    const { credential, credentialBackedUp } = verified.registrationInfo;
    const passkey: PasskeyRecord = {
      id: credential.id,
      userUuid,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      signCount: credential.counter,
      transports: credential.transports ?? [],
      backedUp: credentialBackedUp,
      createdAt: Date.now(),
      lastUsedAt: undefined,
    };
    if (await this.store.find(passkey.id))
      throw new AppError(409, 'passkey_exists', 'This passkey is already registered');
    if (options.upgradeGuest) await this.guests.upgrade(userUuid, { kind: 'passkey', passkey });
    else await this.store.insert(passkey);
    return passkey;
  }

  async authenticationOptions(): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const options = await generateAuthenticationOptions({
      rpID: this.settings.rpId,
      userVerification: 'preferred',
      timeout: CHALLENGE_TTL_MS,
    });
    await this.#remember(options.challenge, 'login', undefined);
    return options;
  }

  /**
   * Signs in with an assertion: the challenge taken once, the signature checked against the stored key,
   * and the signature counter required to grow (a cloned authenticator shows a counter that does not).
   * An assertion without user verification (a PIN-less security key) is one factor: an account with
   * TOTP gets an `mfa_token` for its second step, as after a password.
   */
  async login(response: AuthenticationResponseJSON, clientId: string | undefined): Promise<SignIn> {
    // The same binding as a password login: an app's client_id, or the console's first-party one.
    const binding = await loginBindingFor(this.clients, clientId);
    const { userUuid, at, userVerified } = await this.authenticate(response);
    const first = { userUuid, authTime: Math.floor(at / 1000), clientId: binding.clientId };
    // A passkey is two factors by itself when the authenticator verified the user (PIN or biometric).
    if (userVerified) return issueSignIn(this.tokens, { ...first, amr: ['hwk', 'user', 'mfa'] });
    return this.#secondFactor.signIn({ ...first, amr: ['hwk', 'user'] });
  }

  /** Checks an assertion (see `login`) and records its use: whose passkey it was, and when (ms). */
  async authenticate(
    response: AuthenticationResponseJSON,
  ): Promise<{ userUuid: number; at: number; userVerified: boolean }> {
    await this.#take(challengeOf(response.response.clientDataJSON), 'login', undefined);
    const passkey = await this.store.find(response.id);
    if (!passkey) throw refused('This passkey is not registered here');
    let verified;
    try {
      verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: () => true, // taken above: unused and unexpired
        expectedOrigin: this.settings.origins,
        expectedRPID: this.settings.rpId,
        credential: {
          id: passkey.id,
          publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
          counter: passkey.signCount,
          transports: transportsOf(passkey),
        },
        requireUserVerification: false,
      });
    } catch (err) {
      throw refused(`The passkey sign-in was refused: ${(err as Error).message}`);
    }
    if (!verified.verified) throw refused('The passkey sign-in was refused');
    const now = Date.now();
    const recorded = await this.store.recordUse(
      passkey.id,
      passkey.signCount,
      verified.authenticationInfo.newCounter,
      now,
    );
    if (!recorded) throw refused('The passkey was used concurrently; sign in again');
    return { userUuid: passkey.userUuid, at: now, userVerified: verified.authenticationInfo.userVerified };
  }

  list(userUuid: number): Promise<PasskeyRecord[]> {
    return this.store.listForUser(userUuid);
  }

  /** Deletes one of the user's passkeys, unless it is the only way into the account. */
  async remove(userUuid: number, id: string): Promise<void> {
    const user = await this.users.findUser(userUuid);
    const passkeys = await this.store.listForUser(userUuid);
    if (!passkeys.some((p) => p.id === id))
      throw notFound('passkey_not_found', 'You have no passkey with this id');
    if (
      user?.email === null &&
      passkeys.length === 1 &&
      !(await this.guests.isGuest(userUuid)) &&
      !(await this.identities.hasIdentity(userUuid))
    ) {
      throw new AppError(
        409,
        'last_sign_in_method',
        'This passkey is the only way into the account: add another passkey first',
      );
    }
    if (!(await this.store.remove(userUuid, id)))
      throw notFound('passkey_not_found', 'You have no passkey with this id');
  }

  async #remember(challenge: string, purpose: ChallengePurpose, userUuid: number | undefined) {
    const now = Date.now();
    await this.store.deleteExpiredChallenges(now);
    await this.store.saveChallenge(challenge, purpose, userUuid, now + CHALLENGE_TTL_MS);
  }

  /** Takes the response's challenge once: unknown, used or expired → 401 `passkey_refused`. */
  async #take(challenge: string, purpose: ChallengePurpose, userUuid: number | undefined) {
    const taken = await this.store.takeChallenge(challenge, purpose, userUuid);
    if (!taken) throw refused('The challenge is unknown or was already used: ask for new options');
    if (taken.expiresAt <= Date.now()) throw refused('The challenge expired: ask for new options');
  }
}

const transportsOf = (p: PasskeyRecord) =>
  p.transports as ('ble' | 'cable' | 'hybrid' | 'internal' | 'nfc' | 'smart-card' | 'usb')[];

/** The challenge a response signs, read from its clientDataJSON (the library re-checks the rest). */
function challengeOf(clientDataJSON: string): string {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as {
      challenge?: unknown;
    };
    if (typeof data.challenge === 'string' && data.challenge.length <= 100) return data.challenge;
  } catch {
    /* answered below */
  }
  throw new AppError(400, 'invalid_request', 'response.clientDataJSON is not valid', { field: 'response' });
}
