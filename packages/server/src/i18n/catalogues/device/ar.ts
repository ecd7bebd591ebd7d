import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'device.title': 'ربط جهاز',
  'device.login.heading': 'تسجيل الدخول إلى dauth',
  'device.login.intro': 'لربط جهاز (جهاز ألعاب أو تلفاز أو مشغّل ألعاب) بحسابك',
  'device.login.wrongPassword': 'البريد الإلكتروني أو كلمة المرور غير صحيحة.',
  'device.login.challengeFailed':
    'لم يكتمل التحقق من أن من يسجّل الدخول شخص حقيقي. انتظر حتى يكتمل، ثم سجّل الدخول مرة أخرى.',
  'device.login.accountGuarded':
    'حدثت محاولات تسجيل دخول فاشلة كثيرة لهذا الحساب. أدخل مع كلمة المرور الرمز الذي أرسلناه إلى بريد الحساب، أو انتظر حتى يكتمل التحقق.',
  'device.login.emailCodeWrong':
    'الرمز المرسل بالبريد الإلكتروني غير صحيح أو منتهي الصلاحية أو مستنفد. أدخل أحدث رمز أرسلناه إلى الحساب.',
  'device.login.stepEnded': 'أُدخلت رموز خاطئة كثيرة، أو استغرق تسجيل الدخول وقتًا طويلًا. سجّل الدخول مرة أخرى.',
  'device.code.heading': 'ربط جهاز',
  'device.code.intro': 'أدخل الرمز الظاهر على جهاز الألعاب أو التلفاز أو مشغّل الألعاب.',
  'device.code.label': 'الرمز',
  'device.code.continue': 'متابعة',
  'device.code.wrong': 'هذا الرمز غير صحيح أو منتهي الصلاحية. تحقّق من الرمز الظاهر على جهازك.',
  'device.confirm.heading': 'هل تريد ربط <app>{name}</app>؟',
  'device.confirm.checkCode': 'تأكّد من أن جهازك يعرض الرمز <shown>{code}</shown>.',
  'device.confirm.receives': 'سيحصل <app>{name}</app> على ذلك الجهاز على {items}.',
  'device.confirm.deny': 'رفض',
  'device.confirm.allow': 'السماح',
  'device.confirm.signedInAs': 'تم تسجيل الدخول باسم <email>{account}</email>.',
  'device.done.connected': 'تم ربط الجهاز',
  'device.done.connectedText': 'يسجّل <app>{name}</app> الدخول الآن على جهازك. يمكنك إغلاق هذه الصفحة.',
  'device.done.denied': 'لم يتم ربط الجهاز',
  'device.done.deniedText': 'لقد رفضت <app>{name}</app>. لم تتم مشاركة أي شيء. يمكنك إغلاق هذه الصفحة.',
} satisfies Translation<typeof en>;
