import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'device.title': 'デバイスを接続',
  'device.login.heading': 'dauth にサインイン',
  'device.login.intro':
    'デバイス (ゲーム機、テレビ、ランチャー) をアカウントに接続するためにサインインしてください',
  'device.login.wrongPassword': 'メールアドレスまたはパスワードが正しくありません。',
  'device.login.challengeFailed':
    '人によるサインインであることの確認が完了しませんでした。完了するまで待ってから、もう一度サインインしてください。',
  'device.login.accountGuarded':
    'このアカウントではサインインの失敗が多すぎます。アカウント宛てにメールで送ったコードをパスワードと一緒に入力するか、確認が完了するまでお待ちください。',
  'device.login.emailCodeWrong':
    'メールで送ったコードが間違っているか、期限切れか、使用済みです。アカウント宛てに送った最新のコードを入力してください。',
  'device.login.stepEnded':
    '間違ったコードが多すぎるか、サインインに時間がかかりすぎました。もう一度サインインしてください。',
  'device.code.heading': 'デバイスを接続',
  'device.code.intro': 'ゲーム機、テレビ、またはランチャーに表示されているコードを入力してください。',
  'device.code.label': 'コード',
  'device.code.continue': '続行',
  'device.code.wrong':
    'このコードは間違っているか、期限切れです。デバイスに表示されているコードを確認してください。',
  'device.confirm.heading': '<app>{name}</app> を接続しますか?',
  'device.confirm.checkCode':
    'デバイスにコード <shown>{code}</shown> が表示されていることを確認してください。',
  'device.confirm.receives': 'そのデバイス上の <app>{name}</app> は{items}を受け取ります。',
  'device.confirm.deny': '拒否',
  'device.confirm.allow': '許可',
  'device.confirm.signedInAs': '<email>{account}</email> としてサインインしています。',
  'device.done.connected': 'デバイスを接続しました',
  'device.done.connectedText':
    '<app>{name}</app> がデバイスでサインインしています。このページは閉じてかまいません。',
  'device.done.denied': 'デバイスは接続されていません',
  'device.done.deniedText':
    '<app>{name}</app> を拒否しました。何も共有されていません。このページは閉じてかまいません。',
} satisfies Translation<typeof en>;
