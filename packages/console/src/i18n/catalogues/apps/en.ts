/** The apps list, registering an app, and an app's page: edit, secret, content providers, delete. */
export default {
  'console.apps.title': 'Your apps',
  'console.apps.none': 'You have no apps yet.',
  'console.apps.pending_invitation': 'You have an organization invitation to accept.',
  'console.apps.register': 'Register an app',
  'console.apps.register_submit': 'Register app',
  'console.apps.client_id': 'Client id',
  'console.apps.redirect_uris': 'Redirect URIs',
  'console.apps.redirect_uris_hint':
    'One per line, exactly as your app sends them (https, or http on localhost).',
  'console.apps.created': 'Created',
  'console.apps.name': 'App name',
  'console.apps.dapp': 'Decentralised app (gets the user’s wallet address)',
  'console.apps.secret_once':
    'Copy the client secret now: it is shown only once and cannot be recovered. Rotate it if it is lost.',
  'console.apps.secret': 'Client secret',
  'console.apps.secret_copy': 'Copy client secret',
  'console.apps.saved_open': 'I saved it: open the app',
  'console.apps.not_found': 'App not found',
  'console.apps.back_to_apps': 'Back to your apps',
  'console.apps.all': '← All apps',
  'console.apps.kind': 'Kind',
  'console.apps.kind_dapp': 'Decentralised app',
  'console.apps.kind_app': 'App',
  'console.apps.players_link': 'Players: search, details, revoke',

  'console.apps.edit_title': 'Name and redirect URIs',
  'console.apps.edit_uris_hint': 'One per line. A URI you remove is refused from then on.',
  'console.apps.save': 'Save changes',
  'console.apps.saved': 'Saved.',

  'console.apps.rotate': 'Rotate secret…',
  'console.apps.rotate_question': 'Issue a new client secret? You need to confirm your password.',
  'console.apps.rotate_confirm': 'Rotate now',
  'console.apps.rotate_intro':
    'The secret was shown once when the app was created. Rotate it if it leaked or was lost.',
  'console.apps.rotated_until':
    'Copy the new secret now: it is shown only once. The old secret keeps working until {until}, so deploy the new one before then.',
  'console.apps.rotated_grace':
    'Copy the new secret now: it is shown only once. The old secret keeps working for the grace period (24 hours by default), so deploy the new one before then.',
  'console.apps.seconds_from_now': '{seconds, plural, one {# second} other {# seconds}} from now',
  'console.apps.new_secret': 'New client secret',
  'console.apps.new_secret_copy': 'Copy new client secret',

  'console.apps.provider.title': 'Content providers',
  'console.apps.provider.mode': 'Registered provider (payload form)',
  'console.apps.provider.mode_none': 'none yet: register a cuid below',
  'console.apps.provider.mode_gcm': '{mode} (GCM key issued)',
  'console.apps.provider.mode_registered': 'registered (reload to see its payload form)',
  'console.apps.provider.cuid': 'Content id (cuid)',
  'console.apps.provider.cuid_hint': 'One per game or content.',
  'console.apps.provider.release': 'Settlement ratio (%)',
  'console.apps.provider.release_hint': 'Share of used balances released to you, 0–100.',
  'console.apps.provider.owner': 'Provider wallet address',
  'console.apps.provider.owner_hint': 'Receives the 85% revenue share and the releases.',
  'console.apps.provider.submit': 'Register content provider',
  'console.apps.provider.terms': 'Terms',
  'console.apps.provider.terms_text': 'cuid {cuid}, {percent}% released, paid to {owner}',
  'console.apps.provider.transaction': 'Transaction',
  'console.apps.provider.keys_once':
    'Copy the encryption key and IV now: your backend encrypts consumption records with them, and they are shown only on the app’s first registration.',
  'console.apps.provider.key': 'Encryption key',
  'console.apps.provider.key_copy': 'Copy encryption key',
  'console.apps.provider.iv': 'Encryption IV',
  'console.apps.provider.iv_copy': 'Copy encryption IV',
  'console.apps.provider.gcm_required':
    'This app requires AES-256-GCM payloads and its client secret (HTTP Basic) on every consumption call; the SDKs’ content consumer does both.',
  'console.apps.provider.gcm_key': 'AES-256-GCM key',
  'console.apps.provider.gcm_key_copy': 'Copy AES-256-GCM key',
  'console.apps.provider.keys_exist':
    'This app already has its key and IV (shown at its first registration); they apply to this cuid too.',
  'console.apps.provider.registered': 'Content provider registered.',

  'console.apps.delete_title': 'Delete',
  'console.apps.delete': 'Delete app…',
  'console.apps.delete_question':
    'Delete “{name}”? Every token it holds stops working at once. This cannot be undone.',
  'console.apps.delete_confirm': 'Delete for good',
  'console.apps.deleted': '“{name}” was deleted.',
};
