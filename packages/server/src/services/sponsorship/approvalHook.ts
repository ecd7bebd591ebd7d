import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { ApprovalRequest } from '../../chain/operations/sponsorshipPolicy.js';
import type { SecretBox } from '../../crypto/secretBox.js';
import type { AppSponsorshipPolicy } from '../../stores/appSponsorshipStore.js';
import { type CallbackTargetPolicy, pinnedLookup } from '../oauth/callbackTargetPolicy.js';
import { signDelivery } from '../webhooks/webhookSigner.js';

/** decisions §9: the studio's backend answers within 2 s or its fail-open setting decides. */
export const APPROVAL_TIMEOUT_MS = 2_000;
/** The most of an answer read: `{"approve": true}` is all that is looked at. */
const MAX_ANSWER_BYTES = 4_096;

/**
 * What the hook said: `approved` (a 2xx `{approve: true}`), `refused` (any other 2xx or a 4xx answer),
 * `timeout` (no answer within 2 s), `error` (a 5xx, an unreachable or refused target): the last two
 * are decided by `approval_fail_open`.
 */
export type ApprovalOutcome = 'approved' | 'refused' | 'timeout' | 'error';

export interface ApprovalDecision {
  outcome: ApprovalOutcome;
  approved: boolean;
  seconds: number;
}

/** The AAD the approval secret is sealed under (bound to its app). */
export const approvalSecretAad = (clientId: string) => `sponsorship-approval-secret:${clientId}`;

/**
 * The approval hook (decisions §9): a POST `{user_id, client_id, calls, gas}` signed as Standard
 * Webhooks (the webhook deliveries' signer) with the app's `approval_secret`, to the vetted addresses
 * of its URL only (the callback-target policy, as webhooks), never following a redirect.
 */
export class ApprovalHook {
  // No kept-alive sockets: nothing to close at shutdown, and each ask is bounded by its 2 s anyway.
  readonly #agents = {
    'http:': new http.Agent({ keepAlive: false, maxSockets: 64 }),
    'https:': new https.Agent({ keepAlive: false, maxSockets: 64 }),
  };

  constructor(
    private readonly secretBox: SecretBox,
    private readonly targets: CallbackTargetPolicy,
    private readonly timeoutMs = APPROVAL_TIMEOUT_MS,
  ) {}

  async ask(policy: AppSponsorshipPolicy, request: ApprovalRequest): Promise<ApprovalDecision> {
    const started = performance.now();
    const outcome = await this.#ask(policy, request);
    const approved = outcome === 'approved' || (outcome !== 'refused' && policy.approvalFailOpen);
    return { outcome, approved, seconds: (performance.now() - started) / 1000 };
  }

  async #ask(policy: AppSponsorshipPolicy, request: ApprovalRequest): Promise<ApprovalOutcome> {
    if (policy.approvalUrl === undefined || policy.approvalSecretSealed === undefined) return 'error';
    const url = new URL(policy.approvalUrl);
    const verdict = await this.targets.vet(url);
    if (!verdict.ok) return 'error';
    const secret = this.secretBox
      .open(policy.approvalSecretSealed, approvalSecretAad(policy.clientId))
      .toString('utf8');
    const body = JSON.stringify({
      user_id: String(request.userUuid),
      client_id: request.clientId,
      calls: request.calls,
      gas: request.gas,
    });
    const at = new Date();
    const headers = signDelivery(`msg_${randomBytes(12).toString('hex')}`, body, [secret], at);
    return new Promise<ApprovalOutcome>((resolve) => {
      const secure = url.protocol === 'https:';
      let settled = false;
      const settle = (outcome: ApprovalOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const req = (secure ? https : http).request(
        url,
        {
          method: 'POST',
          agent: this.#agents[secure ? 'https:' : 'http:'],
          lookup: pinnedLookup(verdict.addresses),
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'dauth-sponsorship/1',
          },
        },
        (response) => {
          const status = response.statusCode ?? 0;
          if (status >= 500 || status < 200) {
            response.resume();
            return settle('error');
          }
          if (status >= 300) {
            response.resume();
            return settle('refused');
          }
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_ANSWER_BYTES) {
              response.destroy();
              return settle('refused');
            }
            chunks.push(chunk);
          });
          response.on('end', () => {
            try {
              const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { approve?: unknown };
              settle(answer?.approve === true ? 'approved' : 'refused');
            } catch {
              settle('refused');
            }
          });
          response.on('error', () => settle('error'));
        },
      );
      const timer = setTimeout(() => {
        settle('timeout');
        req.destroy(new Error(`no answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      req.once('error', () => settle('error'));
      req.end(body);
    });
  }
}
