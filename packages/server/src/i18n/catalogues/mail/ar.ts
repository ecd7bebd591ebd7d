import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'mail.when': 'الوقت: {at, date, utc}',
  'mail.network': 'الشبكة: {network}',
  'mail.lastNetwork': 'شبكة المحاولة الأخيرة: {network}',
  'mail.device': 'الجهاز: {device}',
  'mail.unknown': 'غير معروف',

  'mail.code.subject': 'رمز التحقق الخاص بك في dauth',
  'mail.code.code': 'رمز التحقق الخاص بك في dauth هو {code}.',
  'mail.code.pinRecover':
    'استخدمه خلال {minutes, plural, zero {# دقيقة} one {دقيقة واحدة} two {دقيقتين} few {# دقائق} many {# دقيقة} other {# دقيقة}} لاستعادة رمز PIN لمحفظتك (يمنح هذا محفظتك مفتاح مالك جديدًا).',
  'mail.code.notYou': 'إذا لم تطلبه، فتجاهل هذه الرسالة وغيّر كلمة المرور.',

  'mail.address.subjectSignup': 'أكّد عنوان بريدك الإلكتروني في dauth',
  'mail.address.subjectResend': 'رمز التحقق من بريدك الإلكتروني في dauth',
  'mail.address.intro':
    'أكّد أن هذا هو عنوان بريدك الإلكتروني في dauth: افتح هذا الرابط واضغط على الزر في الصفحة',
  'mail.address.code': 'أو أدخل الرمز {code} حيث أنشأت حسابك.',
  'mail.address.validity':
    'يعمل كلاهما مرة واحدة فقط، لمدة {hours, plural, zero {# ساعة} one {ساعة واحدة} two {ساعتين} few {# ساعات} many {# ساعة} other {# ساعة}}.',
  'mail.address.notYou': 'إذا لم تُنشئ حسابًا في dauth، فتجاهل هذه الرسالة.',

  'mail.reset.subject': 'أعد تعيين كلمة مرور dauth',
  'mail.reset.code': 'رمز إعادة تعيين كلمة مرور dauth الخاص بك هو {code}.',
  'mail.reset.enter':
    'أدخله خلال {minutes, plural, zero {# دقيقة} one {دقيقة واحدة} two {دقيقتين} few {# دقائق} many {# دقيقة} other {# دقيقة}} في نموذج إعادة التعيين، أو افتح:',
  'mail.reset.notYou': 'إذا لم تطلب ذلك، فتجاهل هذه الرسالة: ستبقى كلمة المرور كما هي.',

  'mail.guessing.subject': 'هناك من يحاول تخمين كلمة مرور حسابك في dauth',
  'mail.guessing.intro':
    'شهد حسابك في dauth محاولات تسجيل دخول فاشلة كثيرة خلال الدقائق الأخيرة، وربما من أماكن عديدة. وإلى أن تتوقف، يتطلب تسجيل الدخول هذا الرمز إلى جانب كلمة المرور:',
  'mail.guessing.code': 'رمز تسجيل الدخول الخاص بك هو {code}.',
  'mail.guessing.validity':
    'يعمل لمدة {minutes, plural, zero {# دقيقة} one {دقيقة واحدة} two {دقيقتين} few {# دقائق} many {# دقيقة} other {# دقيقة}}. أدخله في صفحة تسجيل الدخول مع كلمة المرور.',
  'mail.guessing.notYou': 'إذا لم تكن أنت، فلم يُفقد شيء: كلمة المرور وحدها لم تعد تفتح الحساب.',
  'mail.guessing.weak': 'إذا كانت كلمة المرور ضعيفة أو تستخدمها في مكان آخر، فغيّرها بعد تسجيل الدخول.',

  'mail.security.passkeyAdded.subject': 'أُضيف مفتاح مرور إلى حسابك في dauth',
  'mail.security.passkeyAdded.body': 'أُضيف مفتاح مرور إلى حسابك في dauth (بيانات الاعتماد {credential}…).',
  'mail.security.passkeyRemoved.subject': 'أُزيل مفتاح مرور من حسابك في dauth',
  'mail.security.passkeyRemoved.body': 'أُزيل مفتاح مرور من حسابك في dauth (بيانات الاعتماد {credential}…).',
  'mail.security.identityLinked.subject': 'رُبطت هوية تسجيل دخول بحسابك في dauth',
  'mail.security.identityLinked.body':
    'رُبط حسابك في {provider} بحسابك في dauth: أصبح بإمكانه الآن تسجيل الدخول إليه.',
  'mail.security.identityUnlinked.subject': 'أُلغي ربط هوية تسجيل دخول بحسابك في dauth',
  'mail.security.identityUnlinked.body': 'أُزيلت هوية مرتبطة من حسابك في dauth.',
  'mail.security.guestUpgraded.subject': 'رُقّي حساب الضيف الخاص بك في dauth إلى حساب كامل',
  'mail.security.guestUpgraded.body':
    'رُقّي حساب الضيف الخاص بك إلى حساب كامل: لم يعد سر الجهاز يتيح تسجيل الدخول.',
  'mail.security.passwordChanged.subject': 'تغيّرت كلمة مرور dauth الخاصة بك',
  'mail.security.passwordChanged.body': 'تغيّرت كلمة مرور حسابك في dauth. سُجّل الخروج من كل الجلسات الأخرى.',
  'mail.security.passwordReset.subject': 'أُعيد تعيين كلمة مرور dauth الخاصة بك',
  'mail.security.passwordReset.body':
    'أُعيد تعيين كلمة مرور حسابك في dauth عبر البريد الإلكتروني. سُجّل الخروج من كل الجلسات.',
  'mail.security.totpEnabled.subject': 'أُضيف تطبيق مصادقة إلى حسابك في dauth',
  'mail.security.totpEnabled.body': 'فُعّل تسجيل الدخول بخطوتين باستخدام تطبيق مصادقة (TOTP) لحسابك في dauth.',
  'mail.security.totpRemoved.subject': 'أُزيل تطبيق المصادقة من حسابك في dauth',
  'mail.security.totpRemoved.body': 'أُوقف تسجيل الدخول بخطوتين باستخدام تطبيق مصادقة (TOTP) لحسابك في dauth.',
  'mail.security.sessionKeyGranted.subject': 'مُنح تطبيقٌ مفتاح جلسة لمحفظتك في dauth',
  'mail.security.sessionKeyGranted.body':
    'مُنح التطبيق {app} مفتاح جلسة: يمكنه الآن التصرف في محفظتك ضمن حدود سياسته.',
  'mail.security.waysInRemoved.subject':
    'تأكّد عنوان بريدك الإلكتروني في dauth: أُزيلت طرق تسجيل الدخول السابقة',
  'mail.security.waysInRemoved.body':
    'تأكّد عنوان البريد الإلكتروني هذا لحسابك في dauth لأول مرة. أُزيلت كل طريقة لتسجيل الدخول أُضيفت قبل هذا التأكيد، وأُنهيت كل الجلسات ورموز التطبيقات ومفاتيح الجلسات الخاصة بالحساب، حتى لا يحتفظ أحدٌ استخدم هذا العنوان قبلك بإمكانية الوصول.',
  'mail.security.waysInRemoved.list': 'ما أُزيل:',
  'mail.security.waysInRemoved.nothing': 'لم يلزم إزالة شيء سوى الجلسات.',
  'mail.security.removed.passkey': 'مفتاح مرور (بيانات الاعتماد {credential}…، أُضيف في {added, date, utc})',
  'mail.security.removed.identity': 'هوية {provider} المرتبطة (أُضيفت في {added, date, utc})',
  'mail.security.removed.namedIdentity': 'هوية {provider} المرتبطة «{name}» (أُضيفت في {added, date, utc})',
  'mail.security.removed.guestSecret': 'سر جهاز الضيف',
  'mail.security.removed.totp': 'تطبيق المصادقة (TOTP) ورموز الاسترداد الخاصة به',
  'mail.security.wasYou': 'إذا كنت أنت من فعل ذلك، فلا حاجة لأي إجراء.',
  'mail.security.notYou':
    'إذا لم تكن أنت، فافتح هذا الرابط وأكّد: سيُسجَّل خروجك من كل مكان، وتُنهى كل مفاتيح الجلسات، ويُلغى مفتاح المرور أو الهوية المضافة، ويُطلب منك تعيين كلمة مرور جديدة عبر البريد الإلكتروني.',
  'mail.security.linkValidity':
    'يعمل الرابط مرة واحدة فقط، لمدة {days, plural, zero {# يوم} one {يوم واحد} two {يومين} few {# أيام} many {# يومًا} other {# يوم}}.',

  'mail.invite.subject': 'دُعيت إلى {org} على dauth',
  'mail.invite.body':
    'دُعيت للانضمام إلى المؤسسة «{org}» على dauth بدور {role, select, admin {مسؤول} developer {مطوّر} viewer {مُشاهد} other {{role}}}.',
  'mail.invite.accept': 'اقبل الدعوة (بعد تسجيل الدخول بعنوان البريد الإلكتروني هذا):',
  'mail.invite.token': 'أو الصق رمز الدعوة هذا في وحدة التحكم أو في `dauth org accept`:',
  'mail.invite.expires': 'تنتهي صلاحية الدعوة في {expires, date, utc} وتعمل مرة واحدة فقط.',
  'mail.invite.notYou': 'إذا لم تكن تتوقعها، فتجاهل هذه الرسالة.',
} satisfies Translation<typeof en>;
