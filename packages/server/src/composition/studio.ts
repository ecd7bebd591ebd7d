import { addressOfPrivateKey } from '../chain/operations/operationOwner.js';
import { checksumAddress } from '../chain/address.js';
import type { SecretBox } from '../crypto/secretBox.js';
import { mnemonicToOwnerKey, newOwnerMnemonic } from '../crypto/ownerKey.js';
import { wipe } from '../crypto/keyShares.js';
import type { Db } from '../db/database.js';
import type { AccountService } from '../services/accounts/accountService.js';
import { CustodySeal } from '../services/custody/custodySeal.js';
import type { FederationService } from '../services/federation/federationService.js';
import type { BrowserSessionService } from '../services/oauth/browserSessions.js';
import type { OAuthService } from '../services/oauth/oauthService.js';
import type { RevocationRegistry } from '../services/oauth/revocationRegistry.js';
import { PlayerDirectoryService } from '../services/players/playerDirectoryService.js';
import { type OwnerKeyMaker, PregenerationService } from '../services/players/pregenerationService.js';
import { ServiceAccountService } from '../services/serviceAccounts/serviceAccountService.js';
import type { TokenService } from '../services/tokens/tokenService.js';
import { PlayerDirectoryStore } from '../stores/playerDirectoryStore.js';
import { PregeneratedPlayerStore } from '../stores/pregeneratedPlayerStore.js';
import { ServiceAccountStore } from '../stores/serviceAccountStore.js';
import { SessionKeyStore } from '../stores/sessionKeyStore.js';
import { SlotStore } from '../stores/slotStore.js';
import type { ChainServices } from './chain.js';

export interface StudioDomain {
  /** An organization's machine clients (docs/machines.md). */
  serviceAccounts: ServiceAccountService;
  /** An app's players: list, search, detail, revoke (docs/players.md). */
  playerDirectory: PlayerDirectoryService;
  /** Players a studio makes before their first sign-in (docs/players.md). */
  pregeneration: PregenerationService;
}

/**
 * What studios run (decisions §9 "Machines", "Players directory", "Pre-generated players"): service accounts,
 * the players directory and pre-generated players. Pre-generation hooks into the ways in: a sign-up with a
 * pre-generated e-mail goes to that account, and every sign-in asks whether a pre-generated account's e-mail
 * is proved yet (the PIN registration adopts its wallet: composition/custody.ts).
 */
export function createStudioDomain(deps: {
  db: Db;
  masterKey: Buffer;
  secretBox: SecretBox;
  tokens: TokenService;
  revocations: RevocationRegistry;
  oauth: OAuthService;
  browserSessions: BrowserSessionService;
  accounts: AccountService;
  federation: FederationService;
  chain: Pick<ChainServices, 'gateway'>;
}): StudioDomain {
  const serviceAccounts = new ServiceAccountService(
    new ServiceAccountStore(deps.db),
    deps.tokens,
    deps.revocations,
    deps.masterKey,
  );
  const directoryStore = new PlayerDirectoryStore(deps.db);
  const playerDirectory = new PlayerDirectoryService(
    {
      store: directoryStore,
      slots: new SlotStore(deps.db),
      // Read-only here: nothing is written through this instance, so it needs no outbox.
      sessionKeys: new SessionKeyStore(deps.db),
      grants: {
        revokeUserClientGrants: (userUuid, clientId, reason) =>
          deps.oauth.revokeUserClientGrants(userUuid, clientId, reason),
        withdrawConsent: (userUuid, clientId) => deps.browserSessions.withdrawConsent(userUuid, clientId),
      },
    },
    checksumAddress,
  );
  const seal = new CustodySeal(deps.secretBox);
  const owners: OwnerKeyMaker = {
    async newOwner(userUuid) {
      const mnemonic = newOwnerMnemonic();
      const key = await mnemonicToOwnerKey(mnemonic);
      try {
        const owner = addressOfPrivateKey(key);
        return { owner, mnemonicSealed: seal.sealMnemonic(mnemonic, userUuid, owner) };
      } finally {
        wipe(key);
      }
    },
  };
  const pregeneration = new PregenerationService(
    new PregeneratedPlayerStore(deps.db),
    owners,
    { walletAddress: async (owner, salt) => deps.chain.gateway.walletAddress(owner, salt) },
    { identityKeyOf: (name) => deps.federation.identityKeyOf(name) },
  );
  deps.accounts.usePregeneratedPlayers(pregeneration);
  deps.tokens.useSignInGate((userId) => pregeneration.checkSignIn(Number(userId)));
  deps.browserSessions.useSignInGate((userUuid) => pregeneration.checkSignIn(userUuid));
  return { serviceAccounts, playerDirectory, pregeneration };
}
