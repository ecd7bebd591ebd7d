/** English: the source of the consent namespace's keys (docs/i18n.md). */
export default {
  'consent.title': 'Allow access',
  'consent.heading': 'Allow <app>{name}</app>?',
  'consent.receives': '<app>{name}</app> asks to use your dauth account: it will receive {items}.',
  'consent.item.userId': 'your user id',
  'consent.item.walletAddress': 'your wallet address',
  'consent.item.email': 'your e-mail address',
  'consent.item.name': 'your name',
  'consent.item.tokens': 'tokens to act for you with this app',
  'consent.redirect': 'You will be sent back to <origin>{address}</origin>.',
  'consent.deny': 'Deny',
  'consent.allow': 'Allow',
  'consent.signedInAs': 'Signed in as <email>{account}</email>.',
  'consent.useAnotherAccount': 'Use another account',
  'consent.policy.intro': 'If you later grant it wallet access with your PIN, <app>{name}</app>:',
  'consent.policy.tokenPerDay':
    'may spend up to {amount, number, ::.##################} {symbol} a day from your wallet until {until, date, medium}',
  'consent.policy.tokenPerDayBaseUnits':
    'may spend up to {amount, number} tokens of {token} a day from your wallet until {until, date, medium}',
  'consent.policy.etherPerDay':
    'may send up to {perDay, number, ::.##################} ETH a day from your wallet until {until, date, medium}',
  'consent.policy.etherPerDayPerCall':
    'may send up to {perDay, number, ::.##################} ETH a day (at most {perCall, number, ::.##################} ETH at a time) from your wallet until {until, date, medium}',
  'consent.policy.calls': 'may call {functions} from your wallet until {until, date, medium}',
  'consent.policy.contractFunctions': '{count, plural, one {# function} other {# functions}} of {contract}',
  'consent.policy.withinPolicy': 'may act from your wallet within its policy until {until, date, medium}',
  'consent.policy.revocable': 'You can revoke this at any time; it ends when you revoke the app.',
} as const;
