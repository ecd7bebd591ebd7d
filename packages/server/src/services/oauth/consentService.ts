import { AppError } from '../../errors.js';
import type { BrowserSessionService } from './browserSessions.js';
import type { ClientService } from './clientService.js';
import type { OAuthService } from './oauthService.js';

/** One app a user approved, as the console's account page lists it. */
export interface ApprovedApp {
  clientId: string;
  name: string;
  /** When the user first approved it (ms): the consent on the login page or the oldest live grant. */
  since: number;
  /** Scopes the live grants carry (OpenID Connect); empty for plain OAuth grants. */
  scopes: string[];
}

/**
 * The apps a user approved (docs/accounts.md): a consent given on the login page, or a live grant (a
 * code flow or the backend-integration flow). Revoking one forgets the consent and revokes every grant
 * — so every access and refresh token of the user for that app — on every replica.
 */
export class ConsentService {
  constructor(
    private readonly sessions: BrowserSessionService,
    private readonly oauth: OAuthService,
    private readonly clients: ClientService,
  ) {}

  async list(userUuid: number): Promise<ApprovedApp[]> {
    const byClient = new Map<string, { since: number; scopes: string[] }>();
    for (const c of await this.sessions.listConsents(userUuid)) {
      byClient.set(c.clientId, { since: c.grantedAt, scopes: [] });
    }
    for (const g of await this.oauth.approvedApps(userUuid)) {
      const known = byClient.get(g.clientId);
      byClient.set(g.clientId, {
        since: Math.min(known?.since ?? g.since, g.since),
        scopes: g.scopes,
      });
    }
    const apps: ApprovedApp[] = [];
    for (const [clientId, entry] of byClient) {
      const client = await this.clients.findClient(clientId);
      if (client) apps.push({ clientId, name: client.name, ...entry }); // a deleted app is gone for good
    }
    return apps.sort((a, b) => a.since - b.since);
  }

  /** Revokes the user's approval of an app; 404 `consent_not_found` when there was none. */
  async revoke(userUuid: number, clientId: string): Promise<{ revokedGrants: number }> {
    const hadConsent = await this.sessions.withdrawConsent(userUuid, clientId);
    const revokedGrants = await this.oauth.revokeUserClientGrants(userUuid, clientId, 'consent_revoked');
    if (!hadConsent && revokedGrants === 0) {
      throw new AppError(404, 'consent_not_found', 'You have not approved an app with this client_id');
    }
    return { revokedGrants };
  }
}
