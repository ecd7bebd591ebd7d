import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import type { ChainServices } from '../../chain/chainServices.js';
import type { Config } from '../../config.js';
import type { SecretBox } from '../../crypto/secretBox.js';
import type { Db } from '../../db/database.js';
import { CustodyStore } from '../../stores/custodyStore.js';
import { VerificationStore } from '../../stores/verificationStore.js';
import type { UserStore } from '../../stores/userStore.js';
import type { WalletStore } from '../../stores/walletStore.js';
import { createMailer } from '../mail/createMailer.js';
import type { Mailer } from '../mail/mailer.js';
import { TokenTransferService } from '../transfers/tokenTransferService.js';
import { EmailVerificationService } from '../verification/emailVerificationService.js';
import { CustodySeal } from './custodySeal.js';
import { CustodyService } from './custodyService.js';
import { PinLockout } from './pinLockout.js';
import { pinDerivationConcurrency, SharePinDeriver } from './sharePinDeriver.js';
import { walletChainOver } from './walletChainAdapter.js';

export interface CustodyDomain {
  custody: CustodyService;
  emailVerification: EmailVerificationService;
  transfers: TokenTransferService;
  mailer: Mailer;
  close(): Promise<void>;
}

/** Wires PIN custody, e-mail verification and transfers (called once by the composition root). */
export function createCustodyDomain(deps: {
  config: Pick<Config, 'pinShareSalt' | 'threadPoolSize' | 'smtpUrl' | 'mailFrom' | 'dataDir'>;
  db: Db;
  logger: Logger;
  secretBox: SecretBox;
  masterKey: Buffer;
  users: UserStore;
  wallets: WalletStore;
  chain: ChainServices;
}): CustodyDomain {
  const store = new CustodyStore(deps.db);
  const chain = walletChainOver(deps.chain);
  const mailer = createMailer(deps.config);
  const emailVerification = new EmailVerificationService(
    new VerificationStore(deps.db),
    deps.users,
    mailer,
    deps.masterKey,
  );
  const custody = new CustodyService(
    {
      store,
      wallets: deps.wallets,
      seal: new CustodySeal(deps.secretBox),
      sharePins: new SharePinDeriver(
        deps.config.pinShareSalt,
        pinDerivationConcurrency(availableParallelism(), deps.config.threadPoolSize),
      ),
      lockout: new PinLockout(store),
      chain,
      logger: deps.logger.child({ component: 'custody' }),
    },
    emailVerification,
  );
  return {
    custody,
    emailVerification,
    transfers: new TokenTransferService(custody, chain),
    mailer,
    close: () => mailer.close(),
  };
}
