import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { PasswordHasher, SCRYPT_PARAMS } from '../crypto/passwordHasher.js';
import { SecretBox } from '../crypto/secretBox.js';
import { openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { ensureSecrets, type PlatformSecrets } from '../secrets.js';
import { AccountService } from '../services/accounts/accountService.js';
import { ProviderDirectory } from '../services/content/providerDirectory.js';
import { ProviderKeyring } from '../services/content/providerKeyring.js';
import { CallbackTargetPolicy } from '../services/oauth/callbackTargetPolicy.js';
import { ClientService } from '../services/oauth/clientService.js';
import { TokenService } from '../services/tokens/tokenService.js';
import { ClientStore } from '../stores/clientStore.js';
import { ContentProviderStore } from '../stores/contentProviderStore.js';
import { SigningKeyStore } from '../stores/signingKeyStore.js';
import { UserStore } from '../stores/userStore.js';
import { createMailer } from './mail.js';
import { createMfaDomain } from './mfa.js';
import { createOrgDomain } from './orgs.js';
import type { OrgService } from '../services/orgs/orgService.js';

/**
 * The database-backed part of the service without the chain: what `dauth` commands that only read or
 * write accounts, apps and provider records use. Nothing here starts the embedded chain or takes its
 * lock, so these commands run beside a live server on the same DATA_DIR (issue 15).
 */
export interface OfflineServices {
  config: Config;
  logger: Logger;
  secrets: PlatformSecrets;
  tokens: TokenService;
  accounts: AccountService;
  clients: ClientService;
  /** Organizations: the personal one new apps go into (docs/orgs.md). */
  orgs: OrgService;
  /** Cuids and their terms, by app. */
  contentProviders: ProviderDirectory;
  /** Payload mode and (on explicit request) the sealed key and IV of an app. */
  providerKeys: ProviderKeyring;
  close(): Promise<void>;
}

export async function createOfflineServices(config: Config, logger: Logger): Promise<OfflineServices> {
  const secrets = ensureSecrets(config);
  const secretBox = new SecretBox(secrets.masterKey);
  const database = openDatabase({
    databaseUrl: config.databaseUrl,
    sqlitePath: path.join(config.dataDir, 'dauth.sqlite'),
  });
  try {
    // A no-op when the server already migrated this database; a fresh DATA_DIR gets its schema here.
    await migrateToLatest(database.db);
    const tokens = new TokenService(new SigningKeyStore(database.db), secretBox, config.publicUrl);
    await tokens.init();
    const passwords = new PasswordHasher(1, Math.max(1, config.scryptQueueMax), {
      ...SCRYPT_PARAMS,
      N: config.scryptN,
    });
    const callbackTargets = new CallbackTargetPolicy({
      allowPrivate: config.callbackAllowPrivate,
      requireHttps: config.requireHttpsRedirects,
    });
    const contentProviders = new ContentProviderStore(database.db);
    const accounts = new AccountService(new UserStore(database.db), tokens, passwords);
    // `dauth user login` of an account with TOTP answers with the second step's mfa_token, as the API does.
    createMfaDomain({
      db: database.db,
      secretBox,
      masterKey: secrets.masterKey,
      tokens,
      issuer: new URL(config.publicUrl).hostname,
      signIns: [accounts],
    });
    const mailer = createMailer(config);
    const { orgs, appAccess } = createOrgDomain({
      config,
      db: database.db,
      mailer,
      masterKey: secrets.masterKey,
    });
    return {
      config,
      logger,
      secrets,
      tokens,
      accounts,
      clients: new ClientService(new ClientStore(database.db), secrets.masterKey, appAccess, callbackTargets),
      orgs,
      contentProviders: new ProviderDirectory(contentProviders),
      providerKeys: new ProviderKeyring(contentProviders, secretBox),
      close: async () => {
        await mailer.close();
        await database.close();
      },
    };
  } catch (err) {
    await database.close();
    throw err;
  }
}
