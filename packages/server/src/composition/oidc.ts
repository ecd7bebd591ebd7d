import type { AccountService } from '../services/accounts/accountService.js';
import type { BrowserSessionService } from '../services/oauth/browserSessions.js';
import type { ClientService } from '../services/oauth/clientService.js';
import { EndSessionService } from '../services/oidc/endSessionService.js';
import { IdTokenIssuer } from '../services/oidc/idTokenIssuer.js';
import type { OidcServices } from '../services/oidc/oidcServices.js';
import { UserInfoService } from '../services/oidc/userInfoService.js';
import type { LoginStatusService } from '../services/status/loginStatusService.js';
import type { TokenService } from '../services/tokens/tokenService.js';
import type { WalletStore } from '../stores/walletStore.js';

/** Wires OpenID Connect (docs/oidc.md): id_tokens, userinfo and RP-initiated logout over the OAuth domain. */
export function createOidcServices(deps: {
  tokens: TokenService;
  /** Fills the `UserDirectory` port of the ID tokens and userinfo. */
  users: AccountService;
  /** Fills the `MainWalletLookup` port of userinfo (the `wallet_address` claim). */
  wallets: WalletStore;
  clients: ClientService;
  sessions: BrowserSessionService;
  loginStatus: LoginStatusService;
  issuer: string;
}): OidcServices {
  return {
    idTokens: new IdTokenIssuer({ signer: deps.tokens, users: deps.users, issuer: deps.issuer }),
    userInfo: new UserInfoService({ users: deps.users, wallets: deps.wallets }),
    endSession: new EndSessionService({
      keys: deps.tokens,
      clients: deps.clients,
      sessions: deps.sessions,
      loginStatus: deps.loginStatus,
      issuer: deps.issuer,
    }),
  };
}
