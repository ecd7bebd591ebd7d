import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'device.title': 'Подключение устройства',
  'device.login.heading': 'Вход в dauth',
  'device.login.intro': 'чтобы подключить устройство (консоль, телевизор или лаунчер) к вашему аккаунту',
  'device.login.wrongPassword': 'Неверный адрес электронной почты или пароль.',
  'device.login.challengeFailed':
    'Проверка того, что входит человек, не завершилась. Дождитесь её окончания и войдите снова.',
  'device.login.accountGuarded':
    'Слишком много неудачных попыток входа в этот аккаунт. Введите вместе с паролем код, который мы отправили на почту аккаунта, или дождитесь окончания проверки.',
  'device.login.emailCodeWrong':
    'Код из письма неверен, истёк или уже израсходован. Введите самый новый код, отправленный на почту аккаунта.',
  'device.login.stepEnded':
    'Слишком много неверных кодов, или вход занял слишком много времени. Войдите снова.',
  'device.code.heading': 'Подключение устройства',
  'device.code.intro': 'Введите код, который показывает ваша консоль, телевизор или лаунчер.',
  'device.code.label': 'Код',
  'device.code.continue': 'Продолжить',
  'device.code.wrong': 'Этот код неверен или истёк. Проверьте код на устройстве.',
  'device.confirm.heading': 'Подключить <app>{name}</app>?',
  'device.confirm.checkCode': 'Убедитесь, что устройство показывает код <shown>{code}</shown>.',
  'device.confirm.receives': '<app>{name}</app> на этом устройстве получит {items}.',
  'device.confirm.deny': 'Отклонить',
  'device.confirm.allow': 'Разрешить',
  'device.confirm.signedInAs': 'Вы вошли как <email>{account}</email>.',
  'device.done.connected': 'Устройство подключено',
  'device.done.connectedText':
    '<app>{name}</app> выполняет вход на вашем устройстве. Эту страницу можно закрыть.',
  'device.done.denied': 'Устройство не подключено',
  'device.done.deniedText':
    'Вы отказали приложению <app>{name}</app>. Никакие данные не переданы. Эту страницу можно закрыть.',
} satisfies Translation<typeof en>;
