import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'consent.title': 'السماح بالوصول',
  'consent.heading': 'هل تسمح لـ <app>{name}</app> بالوصول؟',
  'consent.receives': 'يطلب <app>{name}</app> استخدام حسابك في dauth، وسيحصل على {items}.',
  'consent.item.userId': 'معرّف المستخدم الخاص بك',
  'consent.item.walletAddress': 'عنوان محفظتك',
  'consent.item.email': 'عنوان بريدك الإلكتروني',
  'consent.item.name': 'اسمك',
  'consent.item.tokens': 'رموز وصول للتصرف نيابةً عنك في هذا التطبيق',
  'consent.redirect': 'ستتم إعادتك بعد ذلك إلى <origin>{address}</origin>.',
  'consent.deny': 'رفض',
  'consent.allow': 'السماح',
  'consent.signedInAs': 'تم تسجيل الدخول باسم <email>{account}</email>.',
  'consent.useAnotherAccount': 'استخدام حساب آخر',
  'consent.policy.intro': 'إذا منحته لاحقًا صلاحية الوصول إلى محفظتك باستخدام رمز PIN، فإن <app>{name}</app>:',
  'consent.policy.tokenPerDay':
    'سيتمكن من إنفاق ما يصل إلى {amount, number, ::.##################} {symbol} يوميًا من محفظتك حتى {until, date, medium}',
  'consent.policy.tokenPerDayBaseUnits':
    'سيتمكن من إنفاق ما يصل إلى {amount, number} من الوحدات الأساسية لرموز {token} يوميًا من محفظتك حتى {until, date, medium}',
  'consent.policy.etherPerDay':
    'سيتمكن من إرسال ما يصل إلى {perDay, number, ::.##################} ETH يوميًا من محفظتك حتى {until, date, medium}',
  'consent.policy.etherPerDayPerCall':
    'سيتمكن من إرسال ما يصل إلى {perDay, number, ::.##################} ETH يوميًا (بحد أقصى {perCall, number, ::.##################} ETH في المرة الواحدة) من محفظتك حتى {until, date, medium}',
  'consent.policy.calls': 'سيتمكن من استدعاء {functions} من محفظتك حتى {until, date, medium}',
  'consent.policy.contractFunctions':
    '{count, plural, zero {لا دوال} one {دالة واحدة} two {دالتين} few {# دوال} many {# دالة} other {# دالة}} من العقد {contract}',
  'consent.policy.withinPolicy': 'سيتمكن من التصرف من محفظتك ضمن حدود سياسته حتى {until, date, medium}',
  'consent.policy.revocable': 'يمكنك إلغاء ذلك في أي وقت، وينتهي عند إلغاء وصول التطبيق.',
} satisfies Translation<typeof en>;
