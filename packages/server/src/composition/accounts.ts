import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { PasswordHasher, SCRYPT_PARAMS } from '../crypto/passwordHasher.js';
import type { SecretBox } from '../crypto/secretBox.js';
import type { Db } from '../db/database.js';
import { AccountService } from '../services/accounts/accountService.js';
import { GuestService } from '../services/accounts/guestService.js';
import { PasswordService } from '../services/accounts/passwordService.js';
import { PasswordStrength } from '../services/defense/passwordStrength.js';
import { FederationService } from '../services/federation/federationService.js';
import { ProviderRegistry } from '../services/federation/providerRegistry.js';
import type { Mailer } from '../services/mail/mailer.js';
import type { MfaService } from '../services/mfa/mfaService.js';
import type { BrowserSessionService } from '../services/oauth/browserSessions.js';
import type { ClientService } from '../services/oauth/clientService.js';
import type { OAuthService } from '../services/oauth/oauthService.js';
import { PasskeyService } from '../services/passkeys/passkeyService.js';
import type { AccountSecurityService } from '../services/security/accountSecurityService.js';
import type { Authenticator } from '../services/tokens/authenticator.js';
import type { TokenService } from '../services/tokens/tokenService.js';
import { AddressVerificationService } from '../services/verification/addressVerificationService.js';
import { FederationNonceStore } from '../stores/federationNonceStore.js';
import { FederationStore } from '../stores/federationStore.js';
import { GuestStore } from '../stores/guestStore.js';
import { PasskeyStore } from '../stores/passkeyStore.js';
import { UserStore } from '../stores/userStore.js';
import { VerificationStore } from '../stores/verificationStore.js';
import { createMfaDomain } from './mfa.js';
import { createSecurityDomain } from './security.js';
import { createAccountLife } from './accountLife.js';
import type { AccountLifeService } from '../services/accountLife/accountLifeService.js';
import { ConsentService } from '../services/oauth/consentService.js';
import type { RevocationRegistry } from '../services/oauth/revocationRegistry.js';
import type { SessionKeyService } from '../services/sessionKeys/sessionKeyService.js';
import type { WebhookOutbox } from '../stores/webhookStore.js';

export interface AccountDomain {
  /** The users table: PIN custody, slots, account security and the sponsorship policy read it too. */
  users: UserStore;
  /** The one-time codes and tokens mail carries: sign-up verification, PIN recovery, password reset. */
  verifications: VerificationStore;
  /** Sign-in and sign-up hashes: one scrypt per core at most, a bounded queue behind (a metric). */
  hasher: PasswordHasher;
  /** The weak-password check of sign-up, upgrade, reset and change (PASSWORD_MIN_SCORE). */
  strength: PasswordStrength;
  addressVerification: AddressVerificationService;
  accounts: AccountService;
  guests: GuestService;
  passkeys: PasskeyService;
  federation: FederationService;
  mfa: MfaService;
}

/**
 * The ways in (decisions §9, docs/accounts.md, docs/players.md, docs/federation.md, docs/mfa.md): password
 * accounts and the sign-up mail's verification, guests and passkeys (real accounts of the users table),
 * sign-in with upstream providers, and the second factor every one-factor sign-in goes through. Built
 * after OAuth, whose apps guests, passkeys and federation sign in to; what the account does to itself
 * (password reset, deletion, …) is `createAccountCare`, after session keys.
 */
export function createAccountDomain(deps: {
  config: Pick<
    Config,
    | 'publicUrl'
    | 'threadPoolSize'
    | 'scryptQueueMax'
    | 'scryptN'
    | 'webauthn'
    | 'identityProviders'
    | 'passwordMinScore'
  >;
  db: Db;
  logger: Logger;
  secretBox: SecretBox;
  masterKey: Buffer;
  tokens: TokenService;
  authenticator: Authenticator;
  mailer: Mailer;
  clients: ClientService;
}): AccountDomain {
  const { config, db, logger, tokens, clients } = deps;
  const users = new UserStore(db);
  // Password change and reset void the user's earlier login JWTs (docs/accounts.md).
  deps.authenticator.useLoginCutoff((userId) => users.loginCutoff(Number(userId)));
  // Sign-in and sign-up hashes: one scrypt per core at most, a bounded queue behind (SCRYPT_QUEUE_MAX).
  const hasher = new PasswordHasher(
    Math.min(availableParallelism(), config.threadPoolSize),
    config.scryptQueueMax,
    { ...SCRYPT_PARAMS, N: config.scryptN },
  );
  const verifications = new VerificationStore(db);
  // Sign-up mails a code and a link; until one is used the account's sponsorship is the unverified budget.
  const addressVerification = new AddressVerificationService(
    verifications,
    users,
    deps.mailer,
    deps.masterKey,
    config.publicUrl,
    logger.child({ component: 'address-verification' }),
  );
  // Weak passwords are refused at sign-up, a guest's upgrade, reset and change (docs/security.md).
  const strength = new PasswordStrength(config.passwordMinScore);
  const accounts = new AccountService(users, tokens, hasher, addressVerification, strength);
  // Players (docs/players.md): guest accounts and passkeys, both real accounts of the users table.
  const guests = new GuestService(new GuestStore(db), tokens, hasher, clients, deps.masterKey, strength);
  const federationStore = new FederationStore(db);
  const passkeys = new PasskeyService(
    new PasskeyStore(db),
    accounts,
    guests,
    clients,
    tokens,
    { ...config.webauthn, rpName: 'dauth' },
    federationStore,
  );
  // Sign in with upstream providers (docs/federation.md). Building the registry touches no network:
  // an OpenID provider discovers on first use, so one that is down never blocks the start.
  const nonces = new FederationNonceStore(db);
  const federation = new FederationService(
    federationStore,
    new ProviderRegistry(config.identityProviders, {
      fetch: (input, init) => fetch(input, init),
      now: Date.now,
      claimOnce: (key, ttlMs) => nonces.claimOnce(key, ttlMs),
    }),
    accounts,
    guests,
    clients,
    tokens,
    deps.secretBox,
    { publicUrl: config.publicUrl, logger: logger.child({ component: 'federation' }) },
  );
  // Second factors (docs/mfa.md): a password, federated or unverified-passkey sign-in of an account with
  // TOTP takes a second step.
  const { mfa } = createMfaDomain({
    db,
    secretBox: deps.secretBox,
    masterKey: deps.masterKey,
    tokens,
    issuer: new URL(config.publicUrl).hostname,
    signIns: [accounts, federation, passkeys],
  });
  return {
    users,
    verifications,
    hasher,
    strength,
    addressVerification,
    accounts,
    guests,
    passkeys,
    federation,
    mfa,
  };
}

export interface AccountCare {
  /** Security mail, "this wasn't me" links and the mailbox proof's purge (docs/security.md). */
  security: AccountSecurityService;
  /** Password reset by e-mail and password change (docs/accounts.md). */
  passwords: PasswordService;
  /** The apps the person approved: list and revoke (docs/accounts.md). */
  consents: ConsentService;
  /** Deletion and export (docs/account.md). */
  accountLife: AccountLifeService;
}

/**
 * What a person does to their own account once in, and what protects it: account security (the purge on a
 * first mailbox proof, the reset hold on every sign-in, security mail), password reset and change, the apps
 * they approved, deletion and export. Built after session keys, which a purge, a reset and a deletion end.
 */
export function createAccountCare(deps: {
  config: Pick<Config, 'publicUrl'>;
  db: Db;
  logger: Logger;
  masterKey: Buffer;
  mailer: Mailer;
  tokens: TokenService;
  users: UserStore;
  verifications: VerificationStore;
  hasher: PasswordHasher;
  strength: PasswordStrength;
  addressVerification: AddressVerificationService;
  clients: ClientService;
  oauth: OAuthService;
  browserSessions: BrowserSessionService;
  revocations: RevocationRegistry;
  sessionKeys: SessionKeyService;
  outbox: WebhookOutbox;
}): AccountCare {
  const { db, logger, masterKey, mailer, users, clients, oauth, browserSessions, sessionKeys } = deps;
  const publicUrl = deps.config.publicUrl;
  // Account security (decisions §9 "Ways in"): the purge on a first mailbox proof, the reset hold, security mail.
  const security = createSecurityDomain({
    db,
    users,
    mailer,
    masterKey,
    publicUrl,
    logger,
    oauth,
    sessionKeys,
    tokens: deps.tokens,
    browserSessions,
    addressVerification: deps.addressVerification,
  });
  const passwords = new PasswordService(
    users,
    deps.verifications,
    deps.hasher,
    mailer,
    masterKey,
    publicUrl,
    logger,
    {
      endLoginPageSessions: (userUuid) => browserSessions.endSessionsOf(userUuid),
      revokeAppGrants: (userUuid, reason) => oauth.revokeUserGrants(userUuid, reason),
    },
    security,
    deps.strength,
  );
  return {
    security,
    passwords,
    consents: new ConsentService(browserSessions, oauth, clients),
    accountLife: createAccountLife({
      db,
      outbox: deps.outbox,
      revocations: deps.revocations,
      sessionKeys,
      clients,
      logger,
    }),
  };
}
