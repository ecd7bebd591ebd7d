/** The passkeys page and a guest's upgrade (docs/players.md). */
export default {
  'console.passkeys.title': 'Passkeys',
  'console.passkeys.intro': 'Sign in with your device instead of a password.',
  'console.passkeys.unsupported': 'This browser cannot use passkeys.',
  'console.passkeys.none': 'No passkeys yet.',
  'console.passkeys.add': 'Add a passkey',
  'console.passkeys.added_flash': 'Passkey added.',
  'console.passkeys.name.synced': '{number, plural, =0 {Synced passkey} other {Synced passkey #}}',
  'console.passkeys.name.device':
    '{number, plural, =0 {Passkey on one device} other {Passkey on one device #}}',
  'console.passkeys.added': 'Added',
  'console.passkeys.last_used': 'Last used',
  'console.passkeys.not_used': 'Not used yet',
  'console.passkeys.delete': 'Delete',
  'console.passkeys.delete_named': 'Delete {name}',
  'console.passkeys.delete_question': 'Delete “{name}”? You can no longer sign in with it.',
  'console.passkeys.delete_confirm': 'Delete passkey',
  'console.passkeys.deleted': '“{name}” was deleted.',
  'console.passkeys.upgrade.title': 'Playing as a guest?',
  'console.passkeys.upgrade.intro':
    'Give the account an e-mail and password (or add a passkey above) to keep it for good. A guest without e-mail can recover its PIN only with the mnemonic.',
  'console.passkeys.upgrade.email': 'E-mail',
  'console.passkeys.upgrade.password': 'Password',
  'console.passkeys.upgrade.submit': 'Keep this account with e-mail and password',
  'console.passkeys.upgrade.done': 'Your guest account is now a full account: same wallet and slots.',
};
