import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'consent.title': 'アクセスの許可',
  'consent.heading': '<app>{name}</app> にアクセスを許可しますか?',
  'consent.receives':
    '<app>{name}</app> が dauth アカウントの使用を求めています。このアプリは{items}を受け取ります。',
  'consent.item.userId': 'ユーザー ID',
  'consent.item.walletAddress': 'ウォレットアドレス',
  'consent.item.email': 'メールアドレス',
  'consent.item.name': '名前',
  'consent.item.tokens': 'このアプリであなたの代わりに操作するためのトークン',
  'consent.redirect': 'その後、<origin>{address}</origin> に戻ります。',
  'consent.deny': '拒否',
  'consent.allow': '許可',
  'consent.signedInAs': '<email>{account}</email> としてサインインしています。',
  'consent.useAnotherAccount': '別のアカウントを使う',
  'consent.policy.intro':
    '後で PIN を使ってウォレットへのアクセスを許可すると、<app>{name}</app> は次のことができるようになります:',
  'consent.policy.tokenPerDay':
    '{until, date, medium} まで、ウォレットから 1 日あたり最大 {amount, number, ::.##################} {symbol} を使う',
  'consent.policy.tokenPerDayBaseUnits':
    '{until, date, medium} まで、ウォレットから 1 日あたり最大 {amount, number} 単位の {token} のトークンを使う',
  'consent.policy.etherPerDay':
    '{until, date, medium} まで、ウォレットから 1 日あたり最大 {perDay, number, ::.##################} ETH を送る',
  'consent.policy.etherPerDayPerCall':
    '{until, date, medium} まで、ウォレットから 1 日あたり最大 {perDay, number, ::.##################} ETH (1 回あたり最大 {perCall, number, ::.##################} ETH) を送る',
  'consent.policy.calls': '{until, date, medium} まで、ウォレットから {functions} を呼び出す',
  'consent.policy.contractFunctions': '{contract} の {count, plural, other {# 個の関数}}',
  'consent.policy.withinPolicy':
    '{until, date, medium} まで、アプリのポリシーの範囲内でウォレットから操作する',
  'consent.policy.revocable': 'これはいつでも取り消せます。アプリのアクセスを取り消すと終了します。',
} satisfies Translation<typeof en>;
