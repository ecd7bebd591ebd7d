import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'device.title': '连接设备',
  'device.login.heading': '登录 dauth',
  'device.login.intro': '以将设备（游戏机、电视或启动器）连接到您的账户',
  'device.login.wrongPassword': '电子邮件地址或密码错误。',
  'device.login.challengeFailed': '确认是真人登录的验证尚未完成。请等待验证完成后再次登录。',
  'device.login.accountGuarded':
    '此账户登录失败次数过多。请连同密码输入我们通过电子邮件发送到该账户的验证码，或等待验证完成。',
  'device.login.emailCodeWrong':
    '电子邮件中的验证码错误、已过期或已用完。请输入我们发送到该账户的最新验证码。',
  'device.login.stepEnded': '错误的验证码过多，或登录耗时过长。请重新登录。',
  'device.code.heading': '连接设备',
  'device.code.intro': '请输入游戏机、电视或启动器上显示的代码。',
  'device.code.label': '代码',
  'device.code.continue': '继续',
  'device.code.wrong': '此代码错误或已过期。请核对设备上显示的代码。',
  'device.confirm.heading': '连接 <app>{name}</app> 吗？',
  'device.confirm.checkCode': '请确认您的设备显示的代码为 <shown>{code}</shown>。',
  'device.confirm.receives': '该设备上的 <app>{name}</app> 将获得{items}。',
  'device.confirm.deny': '拒绝',
  'device.confirm.allow': '允许',
  'device.confirm.signedInAs': '当前登录账户：<email>{account}</email>。',
  'device.done.connected': '设备已连接',
  'device.done.connectedText': '<app>{name}</app> 正在您的设备上登录。您可以关闭此页面。',
  'device.done.denied': '设备未连接',
  'device.done.deniedText': '您已拒绝 <app>{name}</app>。未共享任何信息。您可以关闭此页面。',
} satisfies Translation<typeof en>;
