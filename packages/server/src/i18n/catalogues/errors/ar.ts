import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'errors.title': 'خطأ في تسجيل الدخول',
  'errors.heading': 'رابط تسجيل الدخول هذا لا يعمل',
  'errors.advice':
    'طلب التطبيق الذي أرسلك إلى هنا شيئًا لا يستطيع dauth تنفيذه، لذلك لم تتم إعادتك إليه. عد إلى التطبيق وحاول مرة أخرى؛ وإذا تكرر ذلك، فأبلغ مطوّر التطبيق.',
  'errors.technical': 'خطأ {status} {code}: {message}',
  'errors.explanation.redirectUriMismatch':
    'لا يعرف dauth هذا التطبيق (client_id)، أو لم يسجّل التطبيق العنوان الذي طلب العودة إليه (redirect_uri).',
  'errors.explanation.invalidRequest': 'رابط تسجيل الدخول غير مكتمل أو غير سليم.',
  'errors.explanation.rateLimited': 'محاولات كثيرة جدًا من هذه الشبكة. انتظر دقيقة، ثم حاول مرة أخرى.',
  'errors.explanation.invalidCsrfToken':
    'انتهت صلاحية النموذج أو لم يُرسل من صفحة dauth. أعد تحميل الصفحة وحاول مرة أخرى.',
  'errors.explanation.invalidOrigin':
    'لم يُرسل النموذج من صفحة dauth. افتح الرابط الموجود في الرسالة مرة أخرى واستخدم الزر الموجود في صفحته.',
  'errors.explanation.accountExistsLinkRequired':
    'يوجد حساب بعنوان البريد الإلكتروني هذا بالفعل. سجّل الدخول إليه بكلمة المرور أو مفتاح المرور، ثم اربط طريقة تسجيل الدخول هذه من حسابك.',
  'errors.explanation.identityInUse':
    'طريقة تسجيل الدخول هذه مرتبطة بالفعل بحساب آخر في dauth. سجّل الدخول إلى ذلك الحساب، أو ألغِ ربطها منه أولًا.',
  'errors.explanation.flowBrowserMismatch':
    'بدأ تسجيل الدخول هذا في متصفح أو نافذة أخرى. عد إلى التطبيق واختر طريقة تسجيل الدخول مرة أخرى هنا.',
  'errors.explanation.linkBrowserMismatch':
    'طُلب الربط في متصفح آخر، لذلك لم يتم ربط أي شيء. سجّل الدخول إلى حسابك هنا واربط من صفحته.',
  'errors.explanation.invalidState':
    'انتهت صلاحية تسجيل الدخول هذا أو سبق استخدامه. عد إلى التطبيق وابدأ من جديد.',
  'errors.explanation.invalidLinkTicket':
    'انتهت صلاحية طلب الربط هذا أو سبق استخدامه. ابدأ الربط من جديد من صفحة حسابك.',
  'errors.explanation.providerUnavailable':
    'تعذّر الوصول إلى مزوّد تسجيل الدخول الآن. حاول لاحقًا، أو استخدم طريقة أخرى لتسجيل الدخول.',
  'errors.explanation.upstreamRejected': 'تعذّر قبول ردّ مزوّد تسجيل الدخول. عد إلى التطبيق وحاول مرة أخرى.',
  'errors.explanation.unknownProvider':
    'طريقة تسجيل الدخول هذه غير مُعدّة على dauth هذا. عد إلى التطبيق واختر طريقة أخرى.',
  'errors.explanation.unavailable': 'dauth مشغول أو قيد التشغيل الآن. انتظر لحظة، ثم حاول مرة أخرى.',
  'errors.explanation.other': 'تعذّر على dauth إكمال هذا الطلب. عد إلى التطبيق وحاول مرة أخرى.',
} satisfies Translation<typeof en>;
