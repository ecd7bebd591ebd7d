import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'account.secure.title': 'تأمين حسابك',
  'account.secure.heading': 'هل تريد تأمين حسابك في dauth؟',
  'account.secure.text':
    'إذا لم تُجرِ التغيير الذي أبلغتك به هذه الرسالة، فأكّد ذلك أدناه. سيُسجّل dauth خروجك من كل مكان (كل تطبيق وكل جهاز)، وينهي كل مفاتيح الجلسات، ويتراجع عن أي مفتاح مرور أُضيف أو هوية رُبطت، ويرفض أي تسجيل دخول حتى تعيّن كلمة مرور جديدة باستخدام رمز يُرسل إلى بريدك الإلكتروني.',
  'account.secure.confirm': 'نعم، أمّن حسابي',
  'account.secured.title': 'تم تأمين الحساب',
  'account.secured.heading': 'تم تأمين حسابك',
  'account.secured.text':
    'انتهت كل الجلسات ورموز التطبيقات ومفاتيح الجلسات في حسابك على dauth، وتم التراجع عن التغيير المُبلّغ عنه. لتسجيل الدخول مجددًا، أعد تعيين كلمة المرور عبر البريد الإلكتروني.',
  'account.resetPassword': 'إعادة تعيين كلمة المرور',
  'account.linkFailed.title': 'رابط غير صالح',
  'account.linkFailed.heading': 'هذا الرابط لا يعمل',
  'account.secureLinkFailed.text':
    'الرابط غير معروف أو منتهي الصلاحية أو سبق استخدامه، ولم يتغيّر شيء. إذا كنت تظن أن شخصًا آخر يستخدم حسابك، فأعد تعيين كلمة المرور عبر البريد الإلكتروني: سيؤدي ذلك إلى إنهاء كل الجلسات.',
  'account.verify.title': 'تأكيد بريدك الإلكتروني',
  'account.verify.heading': 'هل تريد تأكيد عنوان بريدك الإلكتروني؟',
  'account.verify.text':
    'أكّد أن هذا العنوان يخص حسابك في dauth. إذا لم تنشئ حسابًا في dauth، فأغلق هذه النافذة: لن يحدث شيء.',
  'account.verify.confirm': 'نعم، هذا عنواني',
  'account.verified.title': 'تم التحقق من البريد الإلكتروني',
  'account.verified.heading': 'تم التحقق من عنوان البريد الإلكتروني',
  'account.verified.text': 'شكرًا لك: تم التحقق من عنوان بريدك الإلكتروني في dauth. يمكنك إغلاق هذه النافذة.',
  'account.verifyFailed.title': 'فشل التحقق',
  'account.verifyLinkFailed.text':
    'الرابط غير معروف أو منتهي الصلاحية أو سبق استخدامه. سجّل الدخول واطلب رسالة تحقق جديدة، أو أدخل الرمز من أحدث رسالة.',
} satisfies Translation<typeof en>;
