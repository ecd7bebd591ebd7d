import { randomBytes } from 'node:crypto';
import type { ApprovalRequest } from '../../chain/operations/sponsorshipPolicy.js';
import type { SecretBox } from '../../crypto/secretBox.js';
import type { AppSponsorshipPolicy } from '../../stores/appSponsorshipStore.js';
import type { CallbackTargetPolicy } from '../oauth/callbackTargetPolicy.js';
import { PinnedPoster } from '../oauth/pinnedPoster.js';
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
  // No kept-alive connections (`keepAlive: false`): nothing to close at shutdown, and each ask is bounded by its
  // 2 s anyway.
  readonly #poster = new PinnedPoster();

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
    const answer = await this.#poster.post(url, body, {
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'dauth-sponsorship/1' },
      addresses: verdict.addresses,
      timeoutMs: this.timeoutMs,
      maxAnswerBytes: MAX_ANSWER_BYTES,
      keepAlive: false,
    });
    if (answer.kind === 'timeout') return 'timeout';
    if (answer.kind === 'unreachable') return 'error';
    if (answer.status >= 500 || answer.status < 200) return 'error';
    if (answer.status >= 300 || answer.kind === 'too_large') return 'refused';
    try {
      const parsed = JSON.parse(answer.body?.toString('utf8') ?? '') as { approve?: unknown } | null;
      return parsed?.approve === true ? 'approved' : 'refused';
    } catch {
      return 'refused';
    }
  }
}
