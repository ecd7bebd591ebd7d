/** Wallet policies and the session keys that apply them (decisions §8, "Wallet grants on chain"). */
export default {
  'console.wallet.days': '{n, plural, one {# day} other {# days}}',
  'console.wallet.hours': '{n, plural, one {# hour} other {# hours}}',
  'console.wallet.minutes': '{n, plural, one {# minute} other {# minutes}}',
  'console.wallet.seconds': '{n, plural, one {# second} other {# seconds}}',
  'console.wallet.may_call': 'May call',
  'console.wallet.call_functions': '{to}: functions {functions}',
  'console.wallet.call_any': '{to}: any function',
  'console.wallet.no_contract': 'No contract',
  'console.wallet.per_call': 'Per call',
  'console.wallet.per_day': 'Per day',
  'console.wallet.up_to': 'up to {most}',
  'console.wallet.up_to_used': 'up to {most} ({used} used today)',
  'console.wallet.tokens_per_day': 'Tokens per day',
  'console.wallet.token_limit': '{token}: {limit}',
  'console.wallet.granted_for': 'Granted for',

  'console.wallet.keys.title': 'Wallet access without PIN',
  'console.wallet.keys.intro':
    'Apps you let act with your wallet without your PIN, within the limits you approved (the wallet contract enforces them).',
  'console.wallet.keys.none': 'No app may use your wallet without your PIN.',
  'console.wallet.keys.revoke': 'Revoke {name}’s wallet access',
  'console.wallet.keys.revoke_question':
    'Revoke {name}’s access to your wallet? Its session key stops working on chain.',
  'console.wallet.keys.revoke_confirm': 'Revoke wallet access',
  'console.wallet.keys.revoked': '{name} can no longer use your wallet without your PIN.',
  'console.wallet.keys.key': 'Session key',
  'console.wallet.keys.granted': 'Granted',
  'console.wallet.keys.valid_until': 'Valid until',
  'console.wallet.keys.transaction': 'Transaction',
  'console.wallet.keys.registering': 'Being registered on chain',

  'console.wallet.policy.title': 'Wallet policy',
  'console.wallet.policy.intro':
    'What your app may do with a player’s wallet without the PIN, once the player grants it.',
  'console.wallet.policy.open': 'Show the wallet policy',
  'console.wallet.policy.none': 'No policy yet.',
  'console.wallet.policy.calls': 'Contracts and functions',
  'console.wallet.policy.calls_hint':
    'One contract a line: its address, then the 4-byte selectors it may call (at least one). A token with a limit below allows transfer and approve only; approvals and NFT moves (transferFrom, setApprovalForAll, safeTransferFrom, permit…) are refused elsewhere. Selectors and token limits together: at most 32.',
  'console.wallet.policy.per_call': 'Most value per call (wei)',
  'console.wallet.policy.per_call_hint': '1 ETH is 1000000000000000000 wei; 0 allows no value.',
  'console.wallet.policy.per_day': 'Most value per day (wei)',
  'console.wallet.policy.per_day_hint': 'Over every call of a UTC day.',
  'console.wallet.policy.tokens': 'Token limits per day',
  'console.wallet.policy.tokens_hint':
    'One token a line: its address, then the most base units a day. Empty: no token transfers.',
  'console.wallet.policy.days': 'A grant lasts (days)',
  'console.wallet.policy.days_hint': 'At most 30 days; the player grants again after.',
  'console.wallet.policy.save': 'Save policy',
  'console.wallet.policy.saved': 'Policy saved. Players grant it the next time they approve the app.',
  'console.wallet.policy.delete': 'Delete policy…',
  'console.wallet.policy.delete_question':
    'Delete the wallet policy? Players can no longer grant this app a session key.',
  'console.wallet.policy.delete_confirm': 'Delete policy',
};
