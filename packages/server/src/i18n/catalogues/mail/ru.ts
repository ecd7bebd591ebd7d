import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'mail.when': 'Когда: {at, date, utc}',
  'mail.network': 'Сеть: {network}',
  'mail.lastNetwork': 'Сеть последней попытки: {network}',
  'mail.device': 'Устройство: {device}',
  'mail.unknown': 'неизвестно',

  'mail.code.subject': 'Ваш код подтверждения dauth',
  'mail.code.code': 'Ваш код подтверждения dauth: {code}.',
  'mail.code.pinRecover':
    'Используйте его в течение {minutes, plural, one {# минуты} few {# минут} many {# минут} other {# минуты}}, чтобы восстановить PIN-код кошелька (кошелёк получит новый ключ владельца).',
  'mail.code.notYou': 'Если вы его не запрашивали, проигнорируйте это письмо и смените пароль.',

  'mail.address.subjectSignup': 'Подтвердите адрес электронной почты в dauth',
  'mail.address.subjectResend': 'Ваш код подтверждения адреса электронной почты dauth',
  'mail.address.intro':
    'Подтвердите, что это ваш адрес электронной почты для dauth: откройте эту ссылку и нажмите кнопку на странице',
  'mail.address.code': 'или введите код {code} там, где вы регистрировались.',
  'mail.address.validity':
    'Ссылка и код срабатывают один раз и действуют в течение {hours, plural, one {# часа} few {# часов} many {# часов} other {# часа}}.',
  'mail.address.notYou': 'Если вы не создавали аккаунт dauth, проигнорируйте это письмо.',

  'mail.reset.subject': 'Сброс пароля dauth',
  'mail.reset.code': 'Ваш код для сброса пароля dauth: {code}.',
  'mail.reset.enter':
    'Введите его в форме сброса в течение {minutes, plural, one {# минуты} few {# минут} many {# минут} other {# минуты}} или откройте ссылку:',
  'mail.reset.notYou': 'Если вы этого не запрашивали, проигнорируйте письмо: ваш пароль останется прежним.',

  'mail.guessing.subject': 'Кто-то пытается подобрать пароль к вашему аккаунту dauth',
  'mail.guessing.intro':
    'За последние минуты в ваш аккаунт dauth было много неудачных попыток входа, возможно, из разных мест. Пока они не прекратятся, для входа помимо пароля нужен этот код:',
  'mail.guessing.code': 'Ваш код для входа: {code}.',
  'mail.guessing.validity':
    'Он действует {minutes, plural, one {# минуту} few {# минуты} many {# минут} other {# минуты}}. Введите его на странице входа вместе с паролем.',
  'mail.guessing.notYou':
    'Если это были не вы, ничего не потеряно: одного пароля для входа в аккаунт больше недостаточно.',
  'mail.guessing.weak': 'Если ваш пароль слабый или используется где-то ещё, смените его после входа.',

  'mail.security.passkeyAdded.subject': 'В ваш аккаунт dauth добавлен ключ доступа',
  'mail.security.passkeyAdded.body':
    'В ваш аккаунт dauth добавлен ключ доступа (учётные данные {credential}…).',
  'mail.security.passkeyRemoved.subject': 'Из вашего аккаунта dauth удалён ключ доступа',
  'mail.security.passkeyRemoved.body':
    'Из вашего аккаунта dauth удалён ключ доступа (учётные данные {credential}…).',
  'mail.security.identityLinked.subject': 'К вашему аккаунту dauth привязан способ входа',
  'mail.security.identityLinked.body':
    'Ваш аккаунт {provider} привязан к вашему аккаунту dauth: теперь через него можно войти в dauth.',
  'mail.security.identityUnlinked.subject': 'От вашего аккаунта dauth отвязан способ входа',
  'mail.security.identityUnlinked.body': 'Привязанный аккаунт для входа удалён из вашего аккаунта dauth.',
  'mail.security.guestUpgraded.subject': 'Ваш гостевой аккаунт dauth стал полноценным',
  'mail.security.guestUpgraded.body':
    'Ваш гостевой аккаунт стал полноценным: секрет устройства больше не позволяет войти.',
  'mail.security.passwordChanged.subject': 'Пароль dauth изменён',
  'mail.security.passwordChanged.body':
    'Пароль вашего аккаунта dauth изменён. Все остальные сеансы завершены.',
  'mail.security.passwordReset.subject': 'Пароль dauth сброшен',
  'mail.security.passwordReset.body':
    'Пароль вашего аккаунта dauth сброшен по электронной почте. Все сеансы завершены.',
  'mail.security.totpEnabled.subject': 'К вашему аккаунту dauth добавлено приложение-аутентификатор',
  'mail.security.totpEnabled.body':
    'Для вашего аккаунта dauth включён двухэтапный вход с приложением-аутентификатором (TOTP).',
  'mail.security.totpRemoved.subject': 'Приложение-аутентификатор удалено из вашего аккаунта dauth',
  'mail.security.totpRemoved.body':
    'Для вашего аккаунта dauth отключён двухэтапный вход с приложением-аутентификатором (TOTP).',
  'mail.security.sessionKeyGranted.subject': 'Приложение получило сеансовый ключ к вашему кошельку dauth',
  'mail.security.sessionKeyGranted.body':
    'Приложение {app} получило сеансовый ключ: теперь оно может действовать с вашим кошельком в рамках своей политики.',
  'mail.security.waysInRemoved.subject':
    'Ваш адрес электронной почты в dauth подтверждён: прежние способы входа удалены',
  'mail.security.waysInRemoved.body':
    'Этот адрес электронной почты впервые подтверждён для вашего аккаунта dauth. Все способы входа, добавленные до этого подтверждения, удалены, а все сеансы, токены приложений и сеансовые ключи аккаунта завершены, чтобы никто, кто пользовался этим адресом до вас, не сохранил доступ.',
  'mail.security.waysInRemoved.list': 'Удалено:',
  'mail.security.waysInRemoved.nothing': 'Кроме сеансов, ничего удалять не пришлось.',
  'mail.security.removed.passkey': 'ключ доступа (учётные данные {credential}…, добавлен {added, date, utc})',
  'mail.security.removed.identity': 'привязанный аккаунт {provider} (добавлен {added, date, utc})',
  'mail.security.removed.namedIdentity':
    'привязанный аккаунт {provider} «{name}» (добавлен {added, date, utc})',
  'mail.security.removed.guestSecret': 'секрет гостевого устройства',
  'mail.security.removed.totp': 'приложение-аутентификатор (TOTP) и его резервные коды',
  'mail.security.wasYou': 'Если это были вы, ничего делать не нужно.',
  'mail.security.notYou':
    'Если это были не вы, откройте эту ссылку и подтвердите: вы выйдете из аккаунта на всех устройствах, все сеансовые ключи будут отозваны, добавленный ключ доступа или способ входа будет отменён, а вам будет предложено задать новый пароль по электронной почте.',
  'mail.security.linkValidity':
    'Ссылка срабатывает один раз и действует в течение {days, plural, one {# дня} few {# дней} many {# дней} other {# дня}}.',

  'mail.invite.subject': 'Вас пригласили в {org} в dauth',
  'mail.invite.body':
    'Вас пригласили присоединиться к организации «{org}» в dauth в роли {role, select, admin {администратора} developer {разработчика} viewer {наблюдателя} other {{role}}}.',
  'mail.invite.accept': 'Примите приглашение (войдя с этим адресом электронной почты):',
  'mail.invite.token': 'Или вставьте этот токен приглашения в консоль или в `dauth org accept`:',
  'mail.invite.expires': 'Приглашение действует до {expires, date, utc} и срабатывает один раз.',
  'mail.invite.notYou': 'Если вы не ждали этого приглашения, проигнорируйте письмо.',
} satisfies Translation<typeof en>;
