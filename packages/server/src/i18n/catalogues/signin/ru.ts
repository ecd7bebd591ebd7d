import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'signin.title': 'Вход',
  'signin.heading': 'Вход в dauth',
  'signin.toContinueTo': 'чтобы перейти в <app>{name}</app>',
  'signin.unnamedApp': '(приложение без названия)',
  'signin.email': 'Электронная почта',
  'signin.password': 'Пароль',
  'signin.submit': 'Войти',
  'signin.usePasskey': 'Войти с ключом доступа',
  'signin.continueWith': 'Продолжить через {provider}',
  'signin.createAccount': 'Создать аккаунт',
  'signin.forgotPassword': 'Забыли пароль?',
  'signin.emailCode': 'Код из письма, отправленного на почту аккаунта (если он у вас есть)',
  'signin.backToSignIn': 'Вернуться ко входу',
  'signin.signup.title': 'Создание аккаунта dauth',
  'signin.signup.password':
    'Пароль (не менее {min, plural, one {# символа} few {# символов} many {# символов} other {# символа}})',
  'signin.signup.submit': 'Зарегистрироваться',
  'signin.reset.title': 'Сброс пароля',
  'signin.reset.submit': 'Отправить код',
  'signin.resetConfirm.title': 'Задайте новый пароль',
  'signin.resetConfirm.code': 'Код из письма',
  'signin.resetConfirm.newPassword': 'Новый пароль',
  'signin.resetConfirm.submit': 'Сохранить новый пароль',
  'signin.notice.resetCodeSent': 'Если этот адрес привязан к аккаунту, код уже в пути. Введите его ниже.',
  'signin.notice.passwordChanged': 'Пароль изменён. Войдите с новым паролем.',
  'signin.notice.stepUp': 'Войдите снова, чтобы добавить к аккаунту второй фактор.',
  'signin.error.wrongPassword': 'Неверная почта или пароль.',
  'signin.error.passkeyRefused': 'Этот ключ доступа не принят. Попробуйте ещё раз.',
  'signin.error.accountUnderGuessing':
    'Слишком много неудачных попыток входа в этот аккаунт. Введите код, который мы отправили владельцу на почту, или войдите снова и дайте браузеру завершить проверку.',
  'signin.error.emailCodeWrong':
    'Код из письма неверен, устарел или исчерпан. Введите самый новый код из наших писем или оставьте поле пустым и дайте браузеру завершить проверку.',
  'signin.error.browserCheck':
    'Проверка того, что это настоящий браузер, не завершилась. Попробуйте ещё раз; если не получается, перезагрузите страницу.',
  'signin.error.emailTaken': 'Аккаунт с этой почтой уже существует. Войдите в него или сбросьте его пароль.',
  'signin.error.invalidEmail': 'Введите правильный адрес электронной почты.',
  'signin.error.passwordTooShort':
    'Пароль должен содержать не менее {min, plural, one {# символа} few {# символов} many {# символов} other {# символа}}.',
  'signin.error.weakPassword':
    'Этот пароль слишком легко угадать. Выберите пароль подлиннее, например из нескольких не связанных между собой слов.',
  'signin.error.commonPassword': 'Этот пароль — один из самых распространённых. Выберите другой.',
  'signin.error.resetCodeWrong': 'Почта или код неверны, устарели или уже использованы. Запросите новый код.',
  'signin.error.resetTooManyAttempts':
    'Слишком много неверных кодов. Откройте ссылку из письма или запросите новый код.',
  'signin.error.mfaWrongCode': 'Код неверен или уже использован. Введите текущий код или код восстановления.',
  'signin.error.mfaStepEnded':
    'Слишком много неверных кодов, или вход занял слишком много времени. Войдите снова.',
  'signin.error.other': 'Не получилось. Проверьте введённые данные и попробуйте ещё раз.',
  'signin.check.unavailable':
    'Не удалось загрузить проверку браузера: перезагрузите страницу или попробуйте другой браузер.',
  'signin.check.verifying': 'Проверяем браузер (несколько секунд)…',
  'signin.check.verified': 'Проверено: отправляем форму…',
  'signin.check.failed': 'Проверка браузера не удалась: отметьте флажок, чтобы попробовать ещё раз.',
  'signin.check.expired': 'Срок проверки браузера истёк: отметьте флажок, чтобы попробовать ещё раз.',
  'signin.check.label': 'Я не робот',
  'signin.check.loading': 'Загрузка…',
  'signin.check.required': 'Сначала отметьте флажок.',
  'signin.check.done': 'Проверка пройдена',
  'signin.check.wait': 'Проверяем браузер… подождите.',
  'signin.check.logo': 'ALTCHA (официальный сайт)',
  'signin.mfa.title': 'Двухэтапный вход',
  'signin.mfa.heading': 'Введите код',
  'signin.mfa.codeLabel': 'Код подтверждения',
  'signin.mfa.codeHelp':
    '{digits, number}-значный код из приложения-аутентификатора или один из ваших кодов восстановления.',
  'signin.mfa.submit': 'Подтвердить',
  'signin.enrol.heading': 'Добавьте второй фактор',
  'signin.enrol.intro':
    'Для этого входа нужны два фактора. Отсканируйте код приложением-аутентификатором, затем введите код, который оно покажет.',
  'signin.enrol.qr': 'QR-код ссылки для настройки аутентификатора',
  'signin.enrol.byHand': 'Или добавьте эту ссылку для настройки вручную:',
  'signin.enrol.codeLabel': 'Код из приложения',
  'signin.enrol.codeHelp':
    '{digits, number}-значный код, который сейчас показывает приложение-аутентификатор.',
  'signin.enrol.submit': 'Включить',
  'signin.recovery.title': 'Коды восстановления',
  'signin.recovery.heading': 'Сохраните коды восстановления',
  'signin.recovery.intro':
    'Каждый из них позволяет войти один раз, если вы потеряете аутентификатор. Они показываются только сейчас: запишите их или сохраните в менеджере паролей.',
  'signin.recovery.continue': 'Коды сохранены, продолжить',
  'signin.completion.title': 'Возврат в приложение',
  'signin.completion.returning': 'Возвращаемся в приложение…',
  'signin.completion.done': 'Готово. Это окно можно закрыть.',
  'signin.completion.continue': 'Продолжить',
  'signin.logout.title': 'Выход',
  'signin.logout.heading': 'Выйти из dauth?',
  'signin.logout.appAsks': '<app>{name}</app> просит вас выйти из аккаунта.',
  'signin.logout.explain':
    'Когда приложение в следующий раз запросит ваш аккаунт dauth, нужно будет войти снова.',
  'signin.logout.submit': 'Выйти',
  'signin.loggedOut.title': 'Вы вышли',
  'signin.loggedOut.body': 'Вы вышли из dauth. Это окно можно закрыть.',
} satisfies Translation<typeof en>;
