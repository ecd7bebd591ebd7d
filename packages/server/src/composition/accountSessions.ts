import { AccountSessionsService } from '../services/accountSessions/accountSessionsService.js';

/**
 * The account's Security page (docs/account.md "Sessions"): its sessions (login-page browsers and app
 * grants) and ways in with their last use, over the domains that own them.
 */
export function createAccountSessionsDomain(deps: ConstructorParameters<typeof AccountSessionsService>[0]): {
  accountSessions: AccountSessionsService;
} {
  return { accountSessions: new AccountSessionsService(deps) };
}
