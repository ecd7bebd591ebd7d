/** An organization's service accounts (docs/machines.md). */
export default {
  'console.sa.title': 'Service accounts',
  'console.sa.intro':
    'Machine clients of this organization (CI, support tools, backends): they get tokens with {grant} and act within their scopes.',
  'console.sa.none': 'No service accounts.',
  'console.sa.new': 'New service account',
  'console.sa.name': 'Name',
  'console.sa.scopes': 'Scopes',
  'console.sa.scope': '{scope} — {what}',
  'console.sa.scope.apps_read': 'read apps, activity, webhooks, wallet policy',
  'console.sa.scope.apps_write': 'change redirect URIs and wallet policy',
  'console.sa.scope.webhooks_write': 'manage webhooks',
  'console.sa.scope.players_read': 'list, search and look up players',
  'console.sa.scope.players_write': 'revoke and pre-generate players',
  'console.sa.no_scopes': 'none',
  'console.sa.create': 'Create service account',
  'console.sa.secret_once':
    'Copy the secret now: it is shown only once and cannot be recovered. Rotate it if it is lost.',
  'console.sa.client_id': 'Client id',
  'console.sa.secret': 'Client secret',
  'console.sa.secret_copy': 'Copy client secret',
  'console.sa.created': 'Created',
  'console.sa.last_used': 'Last used',
  'console.sa.never': 'never',
  'console.sa.rotate': 'Rotate secret…',
  'console.sa.rotate_question':
    'Issue a new secret for {name}? The old one keeps working for the grace period.',
  'console.sa.rotate_confirm': 'Rotate now',
  'console.sa.rotated':
    'Copy the new secret now: it is shown only once. The old secret keeps working until {until}.',
  'console.sa.new_secret': 'New client secret',
  'console.sa.new_secret_copy': 'Copy new client secret',
  'console.sa.delete': 'Delete…',
  'console.sa.delete_question': 'Delete {name}? Its secrets and tokens stop working at once.',
  'console.sa.delete_confirm': 'Delete for good',
  'console.sa.deleted': '{name} was deleted.',
};
