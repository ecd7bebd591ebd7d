import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'errors.title': '登录错误',
  'errors.heading': '此登录链接无法使用',
  'errors.advice':
    '将您带到这里的应用请求了 dauth 无法执行的操作，因此没有将您送回该应用。请返回应用重试；如果问题持续出现，请告知该应用的开发者。',
  'errors.technical': '错误 {status} {code}：{message}',
  'errors.explanation.redirectUriMismatch':
    'dauth 不认识此应用（client_id），或该应用没有登记它要求返回的地址（redirect_uri）。',
  'errors.explanation.invalidRequest': '登录链接不完整或格式有误。',
  'errors.explanation.rateLimited': '来自此网络的尝试次数过多。请等待一分钟后再试。',
  'errors.explanation.invalidCsrfToken': '表单已过期，或不是从 dauth 页面提交的。请重新加载页面后再试。',
  'errors.explanation.invalidOrigin':
    '表单不是从 dauth 页面提交的。请重新打开电子邮件中的链接，并使用该页面上的按钮。',
  'errors.explanation.accountExistsLinkRequired':
    '已存在使用此电子邮件地址的账户。请使用密码或通行密钥登录该账户，然后在账户中关联此登录方式。',
  'errors.explanation.identityInUse':
    '此登录方式已关联到另一个 dauth 账户。请登录该账户，或先在那里解除关联。',
  'errors.explanation.flowBrowserMismatch':
    '此次登录是在另一个浏览器或窗口中开始的。请返回应用，并在这里重新选择登录方式。',
  'errors.explanation.linkBrowserMismatch':
    '关联请求是在另一个浏览器中发起的，因此未关联任何内容。请在这里登录您的账户，并从账户页面进行关联。',
  'errors.explanation.invalidState': '此次登录已过期或已被使用。请返回应用重新开始。',
  'errors.explanation.invalidLinkTicket': '此关联请求已过期或已被使用。请从账户页面重新开始关联。',
  'errors.explanation.providerUnavailable': '目前无法连接登录服务提供方。请稍后再试，或使用其他方式登录。',
  'errors.explanation.upstreamRejected': '无法接受登录服务提供方的响应。请返回应用重试。',
  'errors.explanation.unknownProvider': '此 dauth 未设置这种登录方式。请返回应用并选择其他方式。',
  'errors.explanation.unavailable': 'dauth 当前繁忙或正在启动。请稍候再试。',
  'errors.explanation.other': 'dauth 无法完成此请求。请返回应用重试。',
} satisfies Translation<typeof en>;
