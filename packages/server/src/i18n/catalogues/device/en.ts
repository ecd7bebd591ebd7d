/** English: the source of the device namespace's keys (docs/i18n.md). */
export default {
  'device.title': 'Connect a device',
  'device.login.heading': 'Sign in to dauth',
  'device.login.intro': 'to connect a device (a console, TV or launcher) to your account',
  'device.login.wrongPassword': 'E-mail or password is wrong.',
  'device.login.challengeFailed':
    'The check that a person is signing in did not finish. Wait for it to finish, then sign in again.',
  'device.login.accountGuarded':
    'Too many failed sign-ins for this account. Enter the code we e-mailed to the account with your password, or wait for the check to finish.',
  'device.login.emailCodeWrong':
    'The e-mailed code is wrong, expired or used up. Enter the newest code we sent to the account.',
  'device.login.stepEnded': 'Too many wrong codes, or the sign-in took too long. Sign in again.',
  'device.code.heading': 'Connect a device',
  'device.code.intro': 'Enter the code your console, TV or launcher shows.',
  'device.code.label': 'Code',
  'device.code.continue': 'Continue',
  'device.code.wrong': 'This code is wrong or has expired. Check the code on your device.',
  'device.confirm.heading': 'Connect <app>{name}</app>?',
  'device.confirm.checkCode': 'Check that your device shows the code <shown>{code}</shown>.',
  'device.confirm.receives': '<app>{name}</app> on that device will receive {items}.',
  'device.confirm.deny': 'Deny',
  'device.confirm.allow': 'Allow',
  'device.confirm.signedInAs': 'Signed in as <email>{account}</email>.',
  'device.done.connected': 'Device connected',
  'device.done.connectedText': '<app>{name}</app> is signing in on your device. You can close this page.',
  'device.done.denied': 'Device not connected',
  'device.done.deniedText': 'You denied <app>{name}</app>. Nothing was shared. You can close this page.',
} as const;
