import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'account.secure.title': '保护您的账户',
  'account.secure.heading': '要保护您的 dauth 账户吗？',
  'account.secure.text':
    '如果这封电子邮件中提到的更改不是您本人所为，请在下方确认。dauth 将在所有地方（每个应用、每台设备）将您退出登录，终止所有会话密钥，撤销新增的通行密钥或关联的身份，并拒绝所有登录，直到您使用通过电子邮件发送的验证码设置新密码。',
  'account.secure.confirm': '是的，保护我的账户',
  'account.secured.title': '账户已保护',
  'account.secured.heading': '您的账户已受到保护',
  'account.secured.text':
    '您 dauth 账户的所有会话、应用令牌和会话密钥均已终止，报告的更改也已撤销。要重新登录，请通过电子邮件重置密码。',
  'account.resetPassword': '重置密码',
  'account.linkFailed.title': '链接无效',
  'account.linkFailed.heading': '此链接无法使用',
  'account.secureLinkFailed.text':
    '此链接未知、已过期或已被使用，未做任何更改。如果您认为有其他人在使用您的账户，请通过电子邮件重置密码：这会退出所有会话。',
  'account.verify.title': '确认您的电子邮件',
  'account.verify.heading': '要确认您的电子邮件地址吗？',
  'account.verify.text':
    '请确认此地址属于您的 dauth 账户。如果您没有创建过 dauth 账户，请关闭此窗口：不会发生任何事情。',
  'account.verify.confirm': '是的，这是我的地址',
  'account.verified.title': '电子邮件已验证',
  'account.verified.heading': '电子邮件地址已验证',
  'account.verified.text': '谢谢：您的 dauth 电子邮件地址已验证。您可以关闭此窗口。',
  'account.verifyFailed.title': '验证失败',
  'account.verifyLinkFailed.text':
    '此链接未知、已过期或已被使用。请登录并重新申请验证邮件，或输入最新一封邮件中的验证码。',
} satisfies Translation<typeof en>;
