import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'errors.title': 'Ошибка входа',
  'errors.heading': 'Эта ссылка для входа не работает',
  'errors.advice':
    'Приложение, которое направило вас сюда, запросило то, чего dauth сделать не может, поэтому вы не были возвращены в него. Вернитесь в приложение и попробуйте ещё раз; если ошибка повторяется, сообщите разработчику приложения.',
  'errors.technical': 'Ошибка {status} {code}: {message}',
  'errors.explanation.redirectUriMismatch':
    'dauth не знает это приложение (client_id), или приложение не зарегистрировало адрес, на который просило вернуться (redirect_uri).',
  'errors.explanation.invalidRequest': 'Ссылка для входа неполная или повреждена.',
  'errors.explanation.rateLimited':
    'Слишком много попыток из этой сети. Подождите минуту и попробуйте снова.',
  'errors.explanation.invalidCsrfToken':
    'Срок действия формы истёк, или она была отправлена не со страницы dauth. Обновите страницу и попробуйте снова.',
  'errors.explanation.invalidOrigin':
    'Форма была отправлена не со страницы dauth. Снова откройте ссылку из письма и нажмите кнопку на открывшейся странице.',
  'errors.explanation.accountExistsLinkRequired':
    'Аккаунт с этим адресом электронной почты уже существует. Войдите в него с паролем или passkey, а затем привяжите этот способ входа в своём аккаунте.',
  'errors.explanation.identityInUse':
    'Этот способ входа уже привязан к другому аккаунту dauth. Войдите в тот аккаунт или сначала отвяжите его там.',
  'errors.explanation.flowBrowserMismatch':
    'Этот вход был начат в другом браузере или окне. Вернитесь в приложение и снова выберите способ входа здесь.',
  'errors.explanation.linkBrowserMismatch':
    'Привязка была запрошена в другом браузере, поэтому ничего не привязано. Войдите в свой аккаунт здесь и выполните привязку на его странице.',
  'errors.explanation.invalidState':
    'Срок действия этого входа истёк, или он уже использован. Вернитесь в приложение и начните заново.',
  'errors.explanation.invalidLinkTicket':
    'Срок действия этого запроса на привязку истёк, или он уже использован. Начните привязку заново на странице аккаунта.',
  'errors.explanation.providerUnavailable':
    'Сервис входа сейчас недоступен. Попробуйте позже или войдите другим способом.',
  'errors.explanation.upstreamRejected':
    'Не удалось принять ответ сервиса входа. Вернитесь в приложение и попробуйте снова.',
  'errors.explanation.unknownProvider':
    'Этот способ входа не настроен в данном dauth. Вернитесь в приложение и выберите другой.',
  'errors.explanation.unavailable':
    'dauth сейчас перегружен или запускается. Подождите немного и попробуйте снова.',
  'errors.explanation.other':
    'dauth не удалось выполнить этот запрос. Вернитесь в приложение и попробуйте снова.',
} satisfies Translation<typeof en>;
