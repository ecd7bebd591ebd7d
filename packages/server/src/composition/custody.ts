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
import { PregeneratedPlayerStore } from '../stores/pregeneratedPlayerStore.js';
import type { Mailer } from '../services/mail/mailer.js';
import { TokenTransferService } from '../services/transfers/tokenTransferService.js';
import { EmailVerificationService } from '../services/verification/emailVerificationService.js';
import { sameAddress } from '../chain/address.js';
import type { SessionAccountGateway } from '../chain/sessionAccountGateway.js';
import type { Address } from '../chain/types.js';
import { CustodyStore } from '../stores/custodyStore.js';
import type { SessionKeyStore } from '../stores/sessionKeyStore.js';
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
  /** Wallets upgraded to a session account (docs/session-keys.md): their owner operations go through it. */
  sessionAccounts?: SessionAccountsOfWallets;
}): CustodyDomain {
  const store = new CustodyStore(deps.db);
  const chain = walletChainOver(deps.chain, deps.sessionAccounts);
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
    // A pre-generated player's first PIN adopts the wallet a studio made for them (docs/players.md).
    pregenerated: new PregeneratedPlayerStore(deps.db),
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

/** The session accounts' records and their chain reads, which owner operations of upgraded wallets need. */
export interface SessionAccountsOfWallets {
  store: Pick<SessionKeyStore, 'findAccount' | 'findAccountByAddress' | 'activateAccount'>;
  chain: Pick<SessionAccountGateway, 'accountOwner'>;
}

/**
 * The operation sender of `wallet`: the wallet itself, or its session account once the wallet's on-chain
 * owner is that account (an interrupted upgrade whose `changeOwner` landed is completed here).
 */
async function senderOf(
  gateway: ChainServices['gateway'],
  sessions: SessionAccountsOfWallets | undefined,
  wallet: Address,
): Promise<Address> {
  const record = await sessions?.store.findAccount(wallet);
  if (!sessions || !record) return wallet;
  const account = record.accountAddress as Address;
  if (record.state === 'active') return account;
  if (sameAddress((await gateway.walletOwner(wallet)) ?? wallet, account)) {
    await sessions.store.activateAccount(wallet, undefined);
    return account;
  }
  return wallet;
}

/**
 * The custody port (`WalletChain`) over the chain layer's gateway, call builders and operation pipeline. A
 * wallet handed to a session account (docs/session-keys.md) keeps its address: its owner is the session
 * account's owner, and its operations are sent from the session account, which calls the wallet.
 */
export function walletChainOver(
  chain: Pick<ChainServices, 'gateway' | 'operations' | 'calls'>,
  sessions?: SessionAccountsOfWallets,
): WalletChain {
  const { gateway, operations, calls } = chain;
  return {
    walletAddress: async (owner, salt) => gateway.walletAddress(owner, salt),
    ownerOf: async (wallet) => {
      const onChain = await gateway.walletOwner(wallet);
      if (!onChain || !sessions) return onChain;
      const record = await sessions.store.findAccountByAddress(onChain);
      if (!record || !sameAddress(record.walletAddress, wallet)) return onChain;
      if (record.state === 'pending') await sessions.store.activateAccount(wallet, undefined);
      return sessions.chain.accountOwner(onChain);
    },
    hasCode: (address) => gateway.isDeployed(address),
    submit: async (wallet, action, owner, options) =>
      operations.submitOperation({
        ...(options?.forApp !== undefined ? { clientId: options.forApp } : {}),
        owner,
        salt: wallet.salt,
        sender: await senderOf(gateway, sessions, wallet.address),
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
