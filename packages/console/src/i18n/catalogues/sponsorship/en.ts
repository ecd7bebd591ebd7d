/** An app's sponsorship policy and today's burn (docs/sponsorship.md). */
export default {
  'console.sponsorship.title': 'Sponsorship',
  'console.sponsorship.intro':
    'The gas your game’s players get sponsored, inside the platform’s caps. Past a budget, operations answer 429 app_sponsorship_exhausted and the sponsorship.exhausted webhook is sent once a day.',
  'console.sponsorship.per_player': 'Gas per player a day',
  'console.sponsorship.per_guest': 'Gas per guest a day',
  'console.sponsorship.per_app': 'Gas for the whole app a day',
  'console.sponsorship.rate': 'Operations per player a minute',
  'console.sponsorship.budget_hint': 'Empty: no cap of the app’s own (the platform’s caps still apply).',
  'console.sponsorship.hook': 'Approval hook URL',
  'console.sponsorship.hook_hint':
    "Asked before each sponsorship with a signed POST '{user_id, client_id, calls, gas}'; only '{\"approve\": true}' within 2 s approves. Empty: no hook.",
  'console.sponsorship.fail_open': 'Sponsor when the hook times out or fails',
  'console.sponsorship.save': 'Save sponsorship policy',
  'console.sponsorship.saved': 'Sponsorship policy saved.',
  'console.sponsorship.secret': 'Approval secret (shown once)',
  'console.sponsorship.secret_copy': 'Copy approval secret',
  'console.sponsorship.gas': 'gas',
  'console.sponsorship.burn.title': 'Gas sponsored today ({day}, UTC) against the day’s budget',
  'console.sponsorship.burn.summary':
    '{gas, number} gas of {budget, number} gas ({operations, plural, one {# operation} other {# operations}}, {refused, number} refused).{far, select, yes { The axis follows what is spent: the budget line is far above it.} other {}}',
  'console.sponsorship.burn.empty': 'No gas sponsored today yet, against a budget of {budget, number} gas.',
  'console.sponsorship.burn.hour': 'Hour (UTC)',
  'console.sponsorship.burn.spent': 'Spent so far',
  'console.sponsorship.burn.budget': 'Day budget',
  'console.sponsorship.spenders.title': 'Top spenders today',
  'console.sponsorship.spenders.summary':
    '{count, plural, one {The player who spent the most today.} other {The # players who spent the most today.}}',
  'console.sponsorship.spenders.summary_budget':
    '{count, plural, one {The player who spent the most today} other {The # players who spent the most today}}, against {budget, number} gas a player.',
  'console.sponsorship.spenders.empty': 'No player was sponsored today yet.',
  'console.sponsorship.spenders.player': 'Player',
  'console.sponsorship.spenders.gas': 'Gas',
  'console.sponsorship.spenders.budget': 'Player budget',
};
