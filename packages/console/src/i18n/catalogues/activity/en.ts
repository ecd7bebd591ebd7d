/** The app page's activity charts (docs/console.md, "Activity charts"). */
export default {
  'console.activity.title': 'Activity',
  'console.activity.none':
    'Nothing yet over the last {days, plural, one {day} other {# days}} (UTC). Sign-ins and active players, sponsored gas against the app’s budget of {budget, number} gas a day, content bought and consumed per cuid, and marketplace sales appear here as charts.',
  'console.activity.hint':
    'Over the last {days, plural, one {day} other {# days}} (UTC). Hover a chart for a day’s figures; “Figures” lists them all.',

  'console.activity.players.title': 'Sign-ins and active players a day',
  'console.activity.players.summary':
    '{signIns, plural, one {# sign-in} other {# sign-ins}} over the last {days, plural, one {day} other {# days}} (UTC); at most {peak, plural, one {# active player} other {# active players}} on one day.',
  'console.activity.players.empty':
    'No sign-in over the last {days, plural, one {day} other {# days}} (UTC): players appear here once they sign in to the app.',
  'console.activity.players.unit': 'players',
  'console.activity.players.sign_ins': 'Sign-ins',
  'console.activity.players.active': 'Active players',

  'console.activity.gas.title': 'Sponsored gas against the daily budget',
  'console.activity.gas.summary':
    'Budget {budget, number} gas a day; the busiest day used {busiest, number} gas ({tiny, select, yes {under 0.01} other {{share, number, ::.00}}} % of it), {operations, plural, one {# sponsored operation} other {# sponsored operations}} in all.{far, select, yes { The axis follows what is spent: the budget line is far above it.} other {}}',
  'console.activity.gas.empty':
    'No gas sponsored over the last {days, plural, one {day} other {# days}} (UTC), against a budget of {budget, number} gas a day.',
  'console.activity.gas.unit': 'gas',
  'console.activity.gas.spent': 'Sponsored gas',
  'console.activity.gas.budget': 'Daily budget',

  'console.activity.content.title': 'Content bought and consumed per cuid',
  'console.activity.content.summary':
    '{purchases, plural, one {# purchase} other {# purchases}} and {consumptions, plural, one {# consumption record} other {# consumption records}} over the last {days, plural, one {day} other {# days}} (UTC).',
  'console.activity.content.no_provider': 'No content yet: register a cuid under “Content providers” below.',
  'console.activity.content.empty':
    'Nothing bought or consumed yet of {cuids, plural, one {the app’s cuid} other {the app’s # cuids}}.',
  'console.activity.content.unit': 'units',
  'console.activity.content.bought': 'Bought',
  'console.activity.content.consumed': 'Consumed',

  'console.activity.market.title': 'Marketplace sales',
  'console.activity.market.summary':
    '{sales, plural, one {# sale} other {# sales}} over the last {days, plural, one {day} other {# days}} (UTC), for {volume} in all.',
  'console.activity.market.empty':
    'No marketplace sale over the last {days, plural, one {day} other {# days}} (UTC).',
  'console.activity.market.unit': 'sales',
  'console.activity.market.sales': 'Sales',
  'console.activity.market.paid': 'Paid',
};
