import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'consent.title': '允许访问',
  'consent.heading': '允许 <app>{name}</app> 访问吗？',
  'consent.receives': '<app>{name}</app> 请求使用您的 dauth 账户：它将获得{items}。',
  'consent.item.userId': '您的用户 ID',
  'consent.item.walletAddress': '您的钱包地址',
  'consent.item.email': '您的电子邮件地址',
  'consent.item.name': '您的姓名',
  'consent.item.tokens': '代表您在此应用中操作的令牌',
  'consent.redirect': '之后您将返回 <origin>{address}</origin>。',
  'consent.deny': '拒绝',
  'consent.allow': '允许',
  'consent.signedInAs': '当前登录账户：<email>{account}</email>。',
  'consent.useAnotherAccount': '使用其他账户',
  'consent.policy.intro': '如果您之后使用 PIN 授予它钱包访问权限，<app>{name}</app> 将可以：',
  'consent.policy.tokenPerDay':
    '在 {until, date, medium} 之前，每天从您的钱包中最多花费 {amount, number, ::.##################} {symbol}',
  'consent.policy.tokenPerDayBaseUnits':
    '在 {until, date, medium} 之前，每天从您的钱包中最多花费 {amount, number} 个单位的 {token} 代币',
  'consent.policy.etherPerDay':
    '在 {until, date, medium} 之前，每天从您的钱包中最多发送 {perDay, number, ::.##################} ETH',
  'consent.policy.etherPerDayPerCall':
    '在 {until, date, medium} 之前，每天从您的钱包中最多发送 {perDay, number, ::.##################} ETH（每次最多 {perCall, number, ::.##################} ETH）',
  'consent.policy.calls': '在 {until, date, medium} 之前，通过您的钱包调用{functions}',
  'consent.policy.contractFunctions': '{contract} 的 {count, plural, other {# 个函数}}',
  'consent.policy.withinPolicy': '在 {until, date, medium} 之前，在其策略范围内通过您的钱包执行操作',
  'consent.policy.revocable': '您可以随时撤销；撤销该应用的访问权限后，此权限即终止。',
} satisfies Translation<typeof en>;
