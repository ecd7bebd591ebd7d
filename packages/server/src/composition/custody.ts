import type { Logger } from 'pino';
import type { ChainServices } from './chain.js';
import type { Config } from '../config.js';
import { Pbkdf2Pool } from '../crypto/pbkdf2Pool.js';
import type { SecretBox } from '../crypto/secretBox.js';
import type { Db } from '../db/database.js';
import { CustodySeal } from '../services/custody/custodySeal.js';
import { ContentWalletCustody, type ContentWalletSlots } from '../services/custody/contentWallets.js';
import type { CustodyDeps } from '../services/custody/custodyDeps.js';
import { CustodyService } from '../services/custody/custodyService.js';
import { OwnerKeyCheck } from '../services/custody/ownerKeyCheck.js';
import { OwnerRotation } from '../services/custody/ownerRotation.js';
import { PinLockout } from '../services/custody/pinLockout.js';
import { ShareCheck } from '../services/custody/shareCheck.js';
import { SharePinDeriver } from '../services/custody/sharePinDeriver.js';
import type { WalletChain } from '../services/custody/walletChain.js';
import type { Mailer } from '../services/mail/mailer.js';
import { TokenTransferService } from '../services/transfers/tokenTransferService.js';
import { EmailVerificationService } from '../services/verification/emailVerificationService.js';
import { CustodyStore } from '../stores/custodyStore.js';
import { SlotStore } from '../stores/slotStore.js';
import type { UserStore } from '../stores/userStore.js';
import type { VerificationStore } from '../stores/verificationStore.js';
import type { WalletStore } from '../stores/walletStore.js';

export interface CustodyDomain {
  custody: CustodyService;
  emailVerification: EmailVerificationService;
  transfers: TokenTransferService;
  /** PBKDF2 share-PIN derivations; its queue length is a metric. */
  sharePins: SharePinDeriver;
  /** Terminates the PBKDF2 worker pool (server close). */
  close(): Promise<void>;
}

/** Which slot a content wallet belongs to, and who owns it now (pending slots have no owner yet). */
function contentWalletSlotsOver(slots: SlotStore): ContentWalletSlots {
  return {
    slotOfContentWallet: async (address) => {
      const slot = await slots.findByContentAddress(address);
      return slot && slot.state !== 'pending' ? { slotId: slot.id, ownerUuid: slot.ownerUuid } : undefined;
    },
  };
}

/** Wires PIN custody, e-mail verification and transfers (docs/pin-custody.md, docs/security.md). */
export function createCustodyDomain(deps: {
  config: Pick<Config, 'pinShareSalt' | 'pinWorkers' | 'pinWorkerNice' | 'pbkdf2QueueMax'>;
  db: Db;
  logger: Logger;
  secretBox: SecretBox;
  masterKey: Buffer;
  users: UserStore;
  wallets: WalletStore;
  /** Shared with password resets (composition/index.ts). */
  verifications: VerificationStore;
  mailer: Mailer;
  chain: Pick<ChainServices, 'gateway' | 'operations' | 'calls'>;
}): CustodyDomain {
  const store = new CustodyStore(deps.db);
  const chain = walletChainOver(deps.chain);
  const emailVerification = new EmailVerificationService(
    deps.verifications,
    deps.users,
    deps.mailer,
    deps.masterKey,
  );
  const pbkdf2 = new Pbkdf2Pool({
    size: deps.config.pinWorkers,
    nice: deps.config.pinWorkerNice,
    maxQueued: deps.config.pbkdf2QueueMax,
  });
  const sharePins = new SharePinDeriver(deps.config.pinShareSalt, pbkdf2);
  const custodyDeps: CustodyDeps = {
    store,
    wallets: deps.wallets,
    seal: new CustodySeal(deps.secretBox),
    sharePins,
    lockout: new PinLockout(store),
    shareCheck: new ShareCheck(deps.masterKey),
    ownerKeyCheck: new OwnerKeyCheck(deps.masterKey),
    chain,
    logger: deps.logger.child({ component: 'custody' }),
  };
  const custody = new CustodyService(
    custodyDeps,
    emailVerification,
    new OwnerRotation(custodyDeps),
    new ContentWalletCustody(custodyDeps, contentWalletSlotsOver(new SlotStore(deps.db))),
  );
  return {
    custody,
    emailVerification,
    transfers: new TokenTransferService(custody, chain),
    sharePins,
    close: () => pbkdf2.close(),
  };
}

/** The custody port (`WalletChain`) over the chain layer's gateway, call builders and operation pipeline. */
export function walletChainOver(chain: Pick<ChainServices, 'gateway' | 'operations' | 'calls'>): WalletChain {
  const { gateway, operations, calls } = chain;
  return {
    walletAddress: async (owner, salt) => gateway.walletAddress(owner, salt),
    ownerOf: (wallet) => gateway.walletOwner(wallet),
    hasCode: (address) => gateway.isDeployed(address),
    submit: (wallet, action, owner) =>
      operations.submitOperation({
        owner,
        salt: wallet.salt,
        sender: wallet.address,
        ...('calls' in action ? { calls: action.calls } : { callData: action.callData }),
      }),
    changeOwnerCallData: (newOwner) => calls.changeOwnerCallData(newOwner),
    erc20TransferCall: (token, to, amount) => calls.erc20Transfer(token, to, amount),
    dex: gateway.contracts.dex,
    contentWalletCalls: (slotId, _contentWallet, deploy, inner) => [
      ...(deploy ? [calls.platform('accountFactory', 'createAccount', [gateway.contracts.dex, slotId])] : []),
      ...inner.map((c) =>
        calls.platform('dex', 'executeFromSlot', [slotId, c.to, c.value ?? 0n, c.data ?? '0x']),
      ),
    ],
  };
}
