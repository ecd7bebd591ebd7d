import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'signin.title': 'تسجيل الدخول',
  'signin.heading': 'تسجيل الدخول إلى dauth',
  'signin.toContinueTo': 'للمتابعة إلى <app>{name}</app>',
  'signin.unnamedApp': '(تطبيق بلا اسم)',
  'signin.email': 'البريد الإلكتروني',
  'signin.password': 'كلمة المرور',
  'signin.submit': 'دخول',
  'signin.usePasskey': 'استخدام مفتاح مرور',
  'signin.continueWith': 'المتابعة باستخدام {provider}',
  'signin.createAccount': 'إنشاء حساب',
  'signin.forgotPassword': 'هل نسيت كلمة المرور؟',
  'signin.emailCode': 'الرمز الوارد في الرسالة التي أرسلناها إلى بريد الحساب (إن كان لديك)',
  'signin.backToSignIn': 'العودة إلى تسجيل الدخول',
  'signin.signup.title': 'إنشاء حساب dauth',
  'signin.signup.password':
    'كلمة المرور ({min, plural, zero {# حرف على الأقل} one {حرف واحد على الأقل} two {حرفان على الأقل} few {# أحرف على الأقل} many {# حرفًا على الأقل} other {# حرف على الأقل}})',
  'signin.signup.submit': 'إنشاء الحساب',
  'signin.reset.title': 'إعادة تعيين كلمة المرور',
  'signin.reset.submit': 'إرسال رمز إعادة التعيين',
  'signin.resetConfirm.title': 'تعيين كلمة مرور جديدة',
  'signin.resetConfirm.code': 'الرمز الوارد في البريد الإلكتروني',
  'signin.resetConfirm.newPassword': 'كلمة المرور الجديدة',
  'signin.resetConfirm.submit': 'حفظ كلمة المرور الجديدة',
  'signin.notice.resetCodeSent': 'إذا كان هناك حساب يستخدم هذا العنوان، فالرمز في طريقه إليه. أدخله أدناه.',
  'signin.notice.passwordChanged': 'تم تغيير كلمة المرور. سجّل الدخول بكلمة المرور الجديدة.',
  'signin.notice.stepUp': 'سجّل الدخول مرة أخرى لإضافة عامل تحقق ثانٍ إلى حسابك.',
  'signin.error.wrongPassword': 'البريد الإلكتروني أو كلمة المرور غير صحيحة.',
  'signin.error.passkeyRefused': 'لم يُقبل مفتاح المرور هذا. حاول مرة أخرى.',
  'signin.error.accountUnderGuessing':
    'محاولات تسجيل دخول فاشلة كثيرة جدًا لهذا الحساب. أدخل الرمز الذي أرسلناه بالبريد الإلكتروني إلى صاحبه، أو سجّل الدخول مرة أخرى ودع هذا المتصفح يُكمل التحقق.',
  'signin.error.emailCodeWrong':
    'رمز البريد الإلكتروني غير صحيح أو منتهي الصلاحية أو مستنفد. أدخل أحدث رمز أرسلناه، أو اترك الحقل فارغًا ودع هذا المتصفح يُكمل التحقق.',
  'signin.error.browserCheck':
    'لم يكتمل التحقق من أن هذا متصفح حقيقي. حاول مرة أخرى، وإذا استمر الفشل فأعد تحميل الصفحة.',
  'signin.error.emailTaken':
    'يوجد حساب بهذا البريد الإلكتروني بالفعل. سجّل الدخول إليه أو أعد تعيين كلمة مروره.',
  'signin.error.invalidEmail': 'أدخل عنوان بريد إلكتروني صالحًا.',
  'signin.error.passwordTooShort':
    'يجب أن تتكون كلمة المرور من {min, plural, zero {# حرف} one {حرف واحد} two {حرفين} few {# أحرف} many {# حرفًا} other {# حرف}} على الأقل.',
  'signin.error.weakPassword':
    'من السهل جدًا تخمين كلمة المرور هذه. اختر كلمة أطول، مثل بضع كلمات لا علاقة بينها.',
  'signin.error.commonPassword': 'كلمة المرور هذه من أكثر كلمات المرور شيوعًا؛ اختر كلمة أخرى.',
  'signin.error.resetCodeWrong':
    'البريد الإلكتروني أو الرمز غير صحيح أو منتهي الصلاحية أو مستخدم من قبل. اطلب رمزًا جديدًا.',
  'signin.error.resetTooManyAttempts':
    'رموز خاطئة كثيرة جدًا. افتح الرابط الموجود في البريد الإلكتروني أو اطلب رمزًا جديدًا.',
  'signin.error.mfaWrongCode':
    'هذا الرمز غير صحيح أو استُخدم من قبل. أدخل الرمز الحالي أو أحد رموز الاسترداد.',
  'signin.error.mfaStepEnded':
    'رموز خاطئة كثيرة جدًا، أو استغرق تسجيل الدخول وقتًا طويلًا. سجّل الدخول مرة أخرى.',
  'signin.error.other': 'لم تنجح العملية. راجع ما أدخلته وحاول مرة أخرى.',
  'signin.check.unavailable': 'تعذّر تحميل التحقق من أن هذا متصفح حقيقي: أعد تحميل الصفحة أو جرّب متصفحًا آخر.',
  'signin.check.verifying': 'جارٍ التحقق من هذا المتصفح (بضع ثوانٍ)…',
  'signin.check.verified': 'تم التحقق: جارٍ إرسال النموذج…',
  'signin.check.failed': 'فشل التحقق من المتصفح: حدّد المربع للمحاولة مرة أخرى.',
  'signin.check.expired': 'انتهت صلاحية التحقق من المتصفح: حدّد المربع للمحاولة مرة أخرى.',
  'signin.check.label': 'لست روبوتًا',
  'signin.check.loading': 'جارٍ التحميل…',
  'signin.check.required': 'حدّد المربع أولًا.',
  'signin.check.done': 'تم التحقق',
  'signin.check.wait': 'جارٍ التحقق من هذا المتصفح… يُرجى الانتظار.',
  'signin.check.logo': 'ALTCHA (الموقع الرسمي)',
  'signin.mfa.title': 'تسجيل الدخول بخطوتين',
  'signin.mfa.heading': 'أدخل الرمز',
  'signin.mfa.codeLabel': 'رمز المصادقة',
  'signin.mfa.codeHelp':
    'الرمز المكوّن من {digits, plural, zero {# أرقام} one {رقم واحد} two {رقمين} few {# أرقام} many {# رقمًا} other {# رقم}} في تطبيق المصادقة، أو أحد رموز الاسترداد.',
  'signin.mfa.submit': 'تحقّق',
  'signin.enrol.heading': 'إضافة عامل تحقق ثانٍ',
  'signin.enrol.intro':
    'يتطلب تسجيل الدخول هذا عاملَي تحقق. امسح الرمز بتطبيق مصادقة، ثم أدخل الرمز الذي يعرضه.',
  'signin.enrol.qr': 'رمز QR لرابط إعداد تطبيق المصادقة',
  'signin.enrol.byHand': 'أو أضف رابط الإعداد هذا يدويًا:',
  'signin.enrol.codeLabel': 'الرمز من التطبيق',
  'signin.enrol.codeHelp':
    'الرمز المكوّن من {digits, plural, zero {# أرقام} one {رقم واحد} two {رقمين} few {# أرقام} many {# رقمًا} other {# رقم}} الذي يعرضه تطبيق المصادقة الآن.',
  'signin.enrol.submit': 'تفعيل',
  'signin.recovery.title': 'رموز الاسترداد',
  'signin.recovery.heading': 'احفظ رموز الاسترداد',
  'signin.recovery.intro':
    'يتيح لك كل رمز تسجيل الدخول مرة واحدة إذا فقدت تطبيق المصادقة. لن تظهر إلا الآن: دوّنها أو احفظها في مدير كلمات المرور.',
  'signin.recovery.continue': 'حفظتها، متابعة',
  'signin.completion.title': 'العودة إلى التطبيق',
  'signin.completion.returning': 'جارٍ العودة إلى التطبيق…',
  'signin.completion.done': 'تم. يمكنك إغلاق هذه النافذة.',
  'signin.completion.continue': 'متابعة',
  'signin.logout.title': 'تسجيل الخروج',
  'signin.logout.heading': 'هل تريد تسجيل الخروج من dauth؟',
  'signin.logout.appAsks': 'يطلب <app>{name}</app> تسجيل خروجك.',
  'signin.logout.explain':
    'سيلزمك تسجيل الدخول مرة أخرى في المرة القادمة التي يطلب فيها تطبيق حسابك في dauth.',
  'signin.logout.submit': 'خروج',
  'signin.loggedOut.title': 'تم تسجيل الخروج',
  'signin.loggedOut.body': 'تم تسجيل خروجك من dauth. يمكنك إغلاق هذه النافذة.',
} satisfies Translation<typeof en>;
