import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { BotChallengeService } from '../services/defense/botChallenge.js';
import { LoginDefenseService } from '../services/defense/loginDefense.js';
import type { Mailer } from '../services/mail/mailer.js';
import { FederationNonceStore } from '../stores/federationNonceStore.js';
import { RedisOnceMarks } from '../stores/redisOnceMarks.js';
import type { UserStore } from '../stores/userStore.js';
import type { VerificationStore } from '../stores/verificationStore.js';

export interface DefenseDomain {
  /** ALTCHA proof of work (docs/security.md "Bot challenge"): challenges, single-use verification, coverage. */
  botChallenge: BotChallengeService;
  /** The account-level guessing defense (docs/security.md "Password guessing against one account"). */
  loginDefense: LoginDefenseService;
}

/**
 * Launch-day defenses (decisions §9): the bot challenge, whose spent solutions are marked in Redis when
 * REDIS_URL is set (every replica shares it) and otherwise in the database's single-use markers, and the
 * guessing defense of each account, which mails its codes through the shared mailer.
 */
export function createDefenseDomain(deps: {
  config: Pick<Config, 'botChallenge'>;
  db: Db;
  redis: Redis | undefined;
  logger: Logger;
  masterKey: Buffer;
  mailer: Mailer;
  users: UserStore;
  verifications: VerificationStore;
}): DefenseDomain {
  const marks = deps.redis ? new RedisOnceMarks(deps.redis) : new FederationNonceStore(deps.db);
  const botChallenge = new BotChallengeService(deps.masterKey, deps.config.botChallenge, marks);
  const loginDefense = new LoginDefenseService(
    deps.users,
    deps.verifications,
    deps.mailer,
    deps.masterKey,
    botChallenge,
    marks,
    deps.logger.child({ component: 'login-defense' }),
  );
  return { botChallenge, loginDefense };
}
