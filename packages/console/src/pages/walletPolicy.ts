import { ApiError, call } from '../api.js';
import { button, field, h, notice, textarea } from '../dom.js';
import { confirmInline, describeError, form, onSubmit, submit } from '../view.js';
import { platformToken, policyFacts, type WalletPolicy } from './sessionKeys.js';
import { t } from '../i18n/translator.js';

const DAY = 86_400;
const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/**
 * The app's wallet policy (decisions §8): what a player's session key for this app may do without the PIN.
 * Saving needs a fresh login (the step-up prompt).
 *
 * The policy is asked for only when the owner opens the section: an app without one answers the API's
 * 404 `wallet_policy_not_found`, which the browser would log as a failed request on every app page.
 */
export function walletPolicySection(path: string): HTMLElement {
  const open = button(t('console.wallet.policy.open'), { id: 'policy-open' });
  const section = wrap(h('p', {}, t('console.wallet.policy.intro')), open);
  open.addEventListener('click', () => {
    open.disabled = true;
    void loadPolicy(path).then(
      (content) => open.replaceWith(content),
      (error: unknown) => open.replaceWith(notice('error', describeError(error))),
    );
  });
  return section;
}

async function loadPolicy(path: string): Promise<HTMLElement> {
  const route = `${path}/wallet-policy`;
  let policy: WalletPolicy | undefined;
  const token = await platformToken();
  try {
    policy = await call<WalletPolicy>('GET', route);
  } catch (error) {
    // No policy yet (the API's 404 `wallet_policy_not_found`): the form starts empty.
    if (!(error instanceof ApiError && error.code === 'wallet_policy_not_found')) throw error;
  }

  const calls = textarea(
    t('console.wallet.policy.calls'),
    { id: 'policy-calls', name: 'calls', required: true },
    (policy?.calls ?? []).map((c) => [c.to, ...c.selectors].join(' ')).join('\n'),
    t('console.wallet.policy.calls_hint'),
  );
  const perCall = field(
    t('console.wallet.policy.per_call'),
    {
      id: 'policy-per-call',
      name: 'max_value_per_call_wei',
      required: true,
      pattern: '^[0-9]+$',
      inputmode: 'numeric',
    },
    t('console.wallet.policy.per_call_hint'),
  );
  perCall.input.value = policy?.max_value_per_call_wei ?? '0';
  const perDay = field(
    t('console.wallet.policy.per_day'),
    {
      id: 'policy-per-day',
      name: 'max_value_per_day_wei',
      required: true,
      pattern: '^[0-9]+$',
      inputmode: 'numeric',
    },
    t('console.wallet.policy.per_day_hint'),
  );
  perDay.input.value = policy?.max_value_per_day_wei ?? '0';
  const tokens = textarea(
    t('console.wallet.policy.tokens'),
    { id: 'policy-tokens', name: 'token_limits' },
    (policy?.token_limits ?? []).map((t) => `${t.token} ${t.per_day}`).join('\n'),
    t('console.wallet.policy.tokens_hint'),
  );
  const days = field(
    t('console.wallet.policy.days'),
    {
      id: 'policy-days',
      name: 'valid_for_days',
      type: 'number',
      min: '1',
      max: '30',
      step: '1',
      required: true,
    },
    t('console.wallet.policy.days_hint'),
  );
  days.input.value = String(policy ? Math.max(1, Math.ceil(policy.valid_for_seconds / DAY)) : 7);

  const current = h(
    'div',
    { id: 'policy-current' },
    policy ? policyFacts(policy, undefined, token) : h('p', {}, t('console.wallet.policy.none')),
  );
  const f = form(
    'wallet-policy-form',
    calls.wrapper,
    perCall.wrapper,
    perDay.wrapper,
    tokens.wrapper,
    days.wrapper,
    h('div', { class: 'actions' }, submit(t('console.wallet.policy.save'), 'policy-submit')),
  );
  onSubmit(f, async () => {
    const body: WalletPolicy = {
      calls: lines(calls.input.value).map((line) => {
        const [to = '', ...selectors] = line.split(/[\s,]+/);
        return { to, selectors };
      }),
      max_value_per_call_wei: perCall.input.value.trim(),
      max_value_per_day_wei: perDay.input.value.trim(),
      token_limits: lines(tokens.input.value).map((line) => {
        const [token = '', perDayUnits = '0'] = line.split(/[\s,]+/);
        return { token, per_day: perDayUnits };
      }),
      valid_for_seconds: Number(days.input.value) * DAY,
    };
    const saved = await call<WalletPolicy>('PUT', route, body as unknown as Record<string, unknown>);
    current.replaceChildren(policyFacts(saved, undefined, token));
    removeBox.hidden = false;
    return t('console.wallet.policy.saved');
  });

  const remove = button(t('console.wallet.policy.delete'), { id: 'policy-delete', class: 'danger' });
  const confirm = confirmInline(
    remove,
    t('console.wallet.policy.delete_question'),
    t('console.wallet.policy.delete_confirm'),
    async () => {
      await call('DELETE', route);
      confirm.hidden = true;
      removeBox.hidden = true;
      current.replaceChildren(h('p', {}, t('console.wallet.policy.none')));
    },
  );
  const removeBox = h('div', { hidden: !policy }, remove, confirm);
  return h('div', { id: 'policy-body' }, current, f, removeBox);
}

function wrap(...content: (Node | null)[]): HTMLElement {
  return h(
    'section',
    { id: 'wallet-policy', 'aria-labelledby': 'wallet-policy-h' },
    h('h2', { id: 'wallet-policy-h' }, t('console.wallet.policy.title')),
    ...content,
  );
}
