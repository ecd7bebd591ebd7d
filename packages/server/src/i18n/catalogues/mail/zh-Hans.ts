import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'mail.when': '时间：{at, date, utc}',
  'mail.network': '网络：{network}',
  'mail.lastNetwork': '最后一次尝试的网络：{network}',
  'mail.device': '设备：{device}',
  'mail.unknown': '未知',

  'mail.code.subject': '你的 dauth 验证码',
  'mail.code.code': '你的 dauth 验证码是 {code}。',
  'mail.code.pinRecover':
    '请在 {minutes, plural, other {# 分钟}}内使用它来找回你的钱包 PIN（这会为你的钱包设置新的所有者密钥）。',
  'mail.code.notYou': '如果这不是你发起的请求，请忽略此邮件并修改密码。',

  'mail.address.subjectSignup': '请确认你的 dauth 邮箱地址',
  'mail.address.subjectResend': '你的 dauth 邮箱验证码',
  'mail.address.intro': '请确认这是你在 dauth 使用的邮箱地址：打开此链接并点击页面上的按钮',
  'mail.address.code': '或者在你注册的地方输入验证码 {code}。',
  'mail.address.validity': '链接和验证码都只能使用一次，有效期为 {hours, plural, other {# 小时}}。',
  'mail.address.notYou': '如果你没有创建 dauth 账户，请忽略此邮件。',

  'mail.reset.subject': '重置你的 dauth 密码',
  'mail.reset.code': '你的 dauth 密码重置验证码是 {code}。',
  'mail.reset.enter': '请在 {minutes, plural, other {# 分钟}}内在重置表单中输入它，或打开：',
  'mail.reset.notYou': '如果这不是你发起的请求，请忽略此邮件：你的密码不会改变。',

  'mail.guessing.subject': '有人正在猜测你的 dauth 账户密码',
  'mail.guessing.intro':
    '在过去几分钟里，你的 dauth 账户出现了大量登录失败，可能来自许多不同的地方。在这些尝试停止之前，登录时除了密码还需要提供此验证码：',
  'mail.guessing.code': '你的登录验证码是 {code}。',
  'mail.guessing.validity': '它在 {minutes, plural, other {# 分钟}}内有效。请在登录页面连同密码一起输入。',
  'mail.guessing.notYou': '如果这不是你，也无需担心：仅凭密码已无法打开该账户。',
  'mail.guessing.weak': '如果你的密码较弱或在其他地方也使用过，请在登录后修改。',

  'mail.security.passkeyAdded.subject': '你的 dauth 账户添加了一个通行密钥',
  'mail.security.passkeyAdded.body': '你的 dauth 账户添加了一个通行密钥（凭据 {credential}…）。',
  'mail.security.passkeyRemoved.subject': '你的 dauth 账户移除了一个通行密钥',
  'mail.security.passkeyRemoved.body': '你的 dauth 账户移除了一个通行密钥（凭据 {credential}…）。',
  'mail.security.identityLinked.subject': '你的 dauth 账户关联了一个登录身份',
  'mail.security.identityLinked.body':
    '你的 {provider} 账户已关联到你的 dauth 账户：现在可以用它登录 dauth 账户。',
  'mail.security.identityUnlinked.subject': '你的 dauth 账户解除了一个登录身份的关联',
  'mail.security.identityUnlinked.body': '你的 dauth 账户中一个已关联的身份已被移除。',
  'mail.security.guestUpgraded.subject': '你的 dauth 访客账户已升级',
  'mail.security.guestUpgraded.body': '你的访客账户已升级为正式账户：其设备密钥已不能再用于登录。',
  'mail.security.passwordChanged.subject': '你的 dauth 密码已修改',
  'mail.security.passwordChanged.body': '你的 dauth 账户密码已修改。其他所有会话均已退出登录。',
  'mail.security.passwordReset.subject': '你的 dauth 密码已重置',
  'mail.security.passwordReset.body': '你的 dauth 账户密码已通过邮件重置。所有会话均已退出登录。',
  'mail.security.totpEnabled.subject': '你的 dauth 账户添加了身份验证器应用',
  'mail.security.totpEnabled.body': '你的 dauth 账户已开启使用身份验证器应用（TOTP）的两步登录。',
  'mail.security.totpRemoved.subject': '你的 dauth 账户移除了身份验证器应用',
  'mail.security.totpRemoved.body': '你的 dauth 账户已关闭使用身份验证器应用（TOTP）的两步登录。',
  'mail.security.sessionKeyGranted.subject': '一个应用获得了你的 dauth 钱包的会话密钥',
  'mail.security.sessionKeyGranted.body':
    '应用 {app} 获得了一个会话密钥：它现在可以在其策略范围内操作你的钱包。',
  'mail.security.waysInRemoved.subject': '你的 dauth 邮箱地址已确认：之前的登录方式已被移除',
  'mail.security.waysInRemoved.body':
    '此邮箱地址首次为你的 dauth 账户完成确认。在此次确认之前添加的所有登录方式均已移除，账户的所有会话、应用令牌和会话密钥也已终止，以确保在你之前使用过此地址的人无法继续保有访问权限。',
  'mail.security.waysInRemoved.list': '已移除：',
  'mail.security.waysInRemoved.nothing': '除会话外，没有其他需要移除的内容。',
  'mail.security.removed.passkey': '一个通行密钥（凭据 {credential}…，添加于 {added, date, utc}）',
  'mail.security.removed.identity': '已关联的 {provider} 身份（添加于 {added, date, utc}）',
  'mail.security.removed.namedIdentity': '已关联的 {provider} 身份“{name}”（添加于 {added, date, utc}）',
  'mail.security.removed.guestSecret': '访客设备密钥',
  'mail.security.removed.totp': '身份验证器应用（TOTP）及其恢复码',
  'mail.security.wasYou': '如果是你本人操作，则无需任何处理。',
  'mail.security.notYou':
    '如果不是你，请打开此链接并确认：这会让你在所有地方退出登录、终止所有会话密钥、撤销新添加的通行密钥或身份，并要求你通过邮件设置新密码。',
  'mail.security.linkValidity': '该链接只能使用一次，有效期为 {days, plural, other {# 天}}。',

  'mail.invite.subject': '你受邀加入 dauth 上的 {org}',
  'mail.invite.body':
    '你受邀以{role, select, admin {管理员} developer {开发者} viewer {查看者} other {{role}}}身份加入 dauth 上的组织“{org}”。',
  'mail.invite.accept': '接受邀请（需使用此邮箱地址登录）：',
  'mail.invite.token': '或者将此邀请令牌粘贴到控制台或 `dauth org accept` 中：',
  'mail.invite.expires': '此邀请将于 {expires, date, utc} 过期，且只能使用一次。',
  'mail.invite.notYou': '如果你没有预期收到此邀请，请忽略此邮件。',
} satisfies Translation<typeof en>;
