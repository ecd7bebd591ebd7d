import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'signin.title': 'サインイン',
  'signin.heading': 'dauth にサインイン',
  'signin.toContinueTo': '<app>{name}</app> に進みます',
  'signin.unnamedApp': '（名前のないアプリ）',
  'signin.email': 'メールアドレス',
  'signin.password': 'パスワード',
  'signin.submit': 'サインイン',
  'signin.usePasskey': 'パスキーを使う',
  'signin.continueWith': '{provider} で続行',
  'signin.createAccount': 'アカウントを作成',
  'signin.forgotPassword': 'パスワードをお忘れですか？',
  'signin.emailCode': 'アカウント宛てに送信したメールのコード（お持ちの場合）',
  'signin.backToSignIn': 'サインインに戻る',
  'signin.signup.title': 'dauth アカウントを作成',
  'signin.signup.password': 'パスワード（{min, plural, other {#文字}}以上）',
  'signin.signup.submit': '作成する',
  'signin.reset.title': 'パスワードを再設定',
  'signin.reset.submit': '再設定コードを送信',
  'signin.resetConfirm.title': '新しいパスワードを設定',
  'signin.resetConfirm.code': 'メールに記載のコード',
  'signin.resetConfirm.newPassword': '新しいパスワード',
  'signin.resetConfirm.submit': 'このパスワードに変更',
  'signin.notice.resetCodeSent':
    'このアドレスを使っているアカウントがあれば、コードを送信しました。下に入力してください。',
  'signin.notice.passwordChanged': 'パスワードを変更しました。新しいパスワードでサインインしてください。',
  'signin.notice.stepUp': 'アカウントに 2 つ目の認証要素を追加するため、もう一度サインインしてください。',
  'signin.error.wrongPassword': 'メールアドレスまたはパスワードが正しくありません。',
  'signin.error.passkeyRefused': 'このパスキーは受け付けられませんでした。もう一度お試しください。',
  'signin.error.accountUnderGuessing':
    'このアカウントへのサインイン失敗が多すぎます。アカウントの所有者宛てにメールで送ったコードを入力するか、もう一度サインインしてこのブラウザの確認が終わるまでお待ちください。',
  'signin.error.emailCodeWrong':
    'メールのコードが正しくないか、期限切れか、使用回数の上限に達しています。最新のコードを入力するか、欄を空のままにしてこのブラウザの確認が終わるまでお待ちください。',
  'signin.error.browserCheck':
    '実際のブラウザであることの確認が完了しませんでした。もう一度お試しください。失敗が続く場合はページを再読み込みしてください。',
  'signin.error.emailTaken':
    'このメールアドレスのアカウントは既にあります。そのアカウントにサインインするか、パスワードを再設定してください。',
  'signin.error.invalidEmail': '有効なメールアドレスを入力してください。',
  'signin.error.passwordTooShort': 'パスワードは{min, plural, other {#文字}}以上にしてください。',
  'signin.error.weakPassword':
    'このパスワードは推測されやすすぎます。関係のない単語をいくつか並べるなど、もっと長いものにしてください。',
  'signin.error.commonPassword':
    'このパスワードは最もよく使われているパスワードの 1 つです。別のパスワードを選んでください。',
  'signin.error.resetCodeWrong':
    'メールアドレスまたはコードが正しくないか、期限切れか、使用済みです。新しいコードをリクエストしてください。',
  'signin.error.resetTooManyAttempts':
    '間違ったコードが多すぎます。メールのリンクを開くか、新しいコードをリクエストしてください。',
  'signin.error.mfaWrongCode':
    'このコードは正しくないか、既に使用されています。現在のコードか、リカバリーコードを入力してください。',
  'signin.error.mfaStepEnded':
    '間違ったコードが多すぎるか、サインインに時間がかかりすぎました。もう一度サインインしてください。',
  'signin.error.other': 'うまくいきませんでした。入力内容を確認して、もう一度お試しください。',
  'signin.check.unavailable':
    '実際のブラウザであることの確認を読み込めませんでした。ページを再読み込みするか、別のブラウザをお試しください。',
  'signin.check.verifying': 'このブラウザを確認しています（数秒かかります）…',
  'signin.check.verified': '確認しました。フォームを送信しています…',
  'signin.check.failed': 'ブラウザの確認に失敗しました。チェックボックスをオンにしてもう一度お試しください。',
  'signin.check.expired':
    'ブラウザの確認の有効期限が切れました。チェックボックスをオンにしてもう一度お試しください。',
  'signin.check.label': '私はロボットではありません',
  'signin.check.loading': '読み込み中…',
  'signin.check.required': '先にチェックボックスをオンにしてください。',
  'signin.check.done': '確認済み',
  'signin.check.wait': 'このブラウザを確認しています…しばらくお待ちください。',
  'signin.check.logo': 'ALTCHA（公式サイト）',
  'signin.mfa.title': '2 段階サインイン',
  'signin.mfa.heading': 'コードを入力',
  'signin.mfa.codeLabel': '認証コード',
  'signin.mfa.codeHelp':
    '認証アプリに表示される {digits, number} 桁のコード、またはリカバリーコードのいずれか。',
  'signin.mfa.submit': '確認',
  'signin.enrol.heading': '2 つ目の認証要素を追加',
  'signin.enrol.intro':
    'このサインインには 2 つの認証要素が必要です。認証アプリでコードをスキャンし、表示されたコードを入力してください。',
  'signin.enrol.qr': '認証アプリの設定リンクの QR コード',
  'signin.enrol.byHand': 'または、この設定リンクを手動で追加してください：',
  'signin.enrol.codeLabel': 'アプリのコード',
  'signin.enrol.codeHelp': '認証アプリに今表示されている {digits, number} 桁のコード。',
  'signin.enrol.submit': '有効にする',
  'signin.recovery.title': 'リカバリーコード',
  'signin.recovery.heading': 'リカバリーコードを保存',
  'signin.recovery.intro':
    '認証アプリをなくしたときに、それぞれ 1 回だけサインインに使えます。表示されるのは今だけです。書き留めるか、パスワードマネージャーに保存してください。',
  'signin.recovery.continue': '保存しました。続ける',
  'signin.completion.title': 'アプリに戻る',
  'signin.completion.returning': 'アプリに戻っています…',
  'signin.completion.done': '完了しました。このウィンドウは閉じてかまいません。',
  'signin.completion.continue': '続ける',
  'signin.logout.title': 'サインアウト',
  'signin.logout.heading': 'dauth からサインアウトしますか？',
  'signin.logout.appAsks': '<app>{name}</app> がサインアウトを求めています。',
  'signin.logout.explain':
    '次にアプリが dauth アカウントを求めたときに、もう一度サインインする必要があります。',
  'signin.logout.submit': 'サインアウトする',
  'signin.loggedOut.title': 'サインアウトしました',
  'signin.loggedOut.body': 'dauth からサインアウトしました。このウィンドウは閉じてかまいません。',
} satisfies Translation<typeof en>;
