import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import type { Mailer } from '../services/mail/mailer.js';
import type { BrowserSessionService } from '../services/oauth/browserSessions.js';
import type { OAuthService } from '../services/oauth/oauthService.js';
import { AccountSecurityService } from '../services/security/accountSecurityService.js';
import type { SessionKeyService } from '../services/sessionKeys/sessionKeyService.js';
import type { TokenService } from '../services/tokens/tokenService.js';
import type { AddressVerificationService } from '../services/verification/addressVerificationService.js';
import { AccountSecurityStore } from '../stores/accountSecurityStore.js';
import type { UserStore } from '../stores/userStore.js';

/**
 * Wires account security (decisions §9 "Ways in", docs/security.md): the mailbox proof's purge behind the
 * address verification (the password reset gets it as a constructor port), the sign-in gate of the
 * password-reset hold on every sign-in path (login JWTs and the login page's sessions), and the finishing of
 * session cut-offs a crash interrupted.
 */
export function createSecurityDomain(deps: {
  db: Db;
  users: UserStore;
  mailer: Mailer;
  masterKey: Buffer;
  publicUrl: string;
  logger: Logger;
  oauth: OAuthService;
  sessionKeys: SessionKeyService;
  tokens: TokenService;
  browserSessions: BrowserSessionService;
  addressVerification: AddressVerificationService;
}): AccountSecurityService {
  const logger = deps.logger.child({ component: 'account-security' });
  const security = new AccountSecurityService(
    new AccountSecurityStore(deps.db),
    {
      findUser: (userUuid) => deps.users.findById(userUuid),
      emailVerified: (userUuid) => deps.users.emailVerified(userUuid),
    },
    {
      revokeAppGrants: (userUuid, reason) => deps.oauth.revokeUserGrants(userUuid, reason),
      sweepSessionKeys: () =>
        void deps.sessionKeys
          .sweep()
          .catch((err: unknown) => logger.warn({ err }, 'session key sweep failed')),
    },
    deps.mailer,
    deps.masterKey,
    deps.publicUrl,
    logger,
  );
  deps.addressVerification.useMailboxProof(security);
  deps.tokens.useSignInGate((userId) => security.checkSignIn(Number(userId)));
  deps.browserSessions.useSignInGate((userUuid) => security.checkSignIn(userUuid));
  void security
    .finishPending()
    .catch((err: unknown) =>
      logger.warn({ err }, 'unfinished session cut-offs not finished; retried at the next start'),
    );
  return security;
}
