import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'errors.title': 'サインインエラー',
  'errors.heading': 'このサインインリンクは使用できません',
  'errors.advice':
    'ここに移動させたアプリが dauth にはできない要求をしたため、アプリには戻りませんでした。アプリに戻ってもう一度お試しください。繰り返し発生する場合は、アプリの開発者に連絡してください。',
  'errors.technical': 'エラー {status} {code}: {message}',
  'errors.explanation.redirectUriMismatch':
    'dauth はこのアプリ (client_id) を認識していないか、アプリが戻り先として指定したアドレス (redirect_uri) を登録していません。',
  'errors.explanation.invalidRequest': 'サインインリンクが不完全か、形式が正しくありません。',
  'errors.explanation.rateLimited':
    'このネットワークからの試行が多すぎます。1 分ほど待ってから、もう一度お試しください。',
  'errors.explanation.invalidCsrfToken':
    'フォームの有効期限が切れたか、dauth のページから送信されていません。ページを再読み込みして、もう一度お試しください。',
  'errors.explanation.invalidOrigin':
    'フォームが dauth のページから送信されていません。メールのリンクをもう一度開き、そのページのボタンを使ってください。',
  'errors.explanation.accountExistsLinkRequired':
    'このメールアドレスのアカウントはすでに存在します。パスワードまたはパスキーでそのアカウントにサインインしてから、アカウントでこのサインイン方法をリンクしてください。',
  'errors.explanation.identityInUse':
    'このサインイン方法はすでに別の dauth アカウントにリンクされています。そのアカウントにサインインするか、先にそちらでリンクを解除してください。',
  'errors.explanation.flowBrowserMismatch':
    'このサインインは別のブラウザーまたはウィンドウで開始されました。アプリに戻り、ここでもう一度サインイン方法を選んでください。',
  'errors.explanation.linkBrowserMismatch':
    'リンクは別のブラウザーで要求されたため、何もリンクされていません。ここでアカウントにサインインし、アカウントのページからリンクしてください。',
  'errors.explanation.invalidState':
    'このサインインは期限切れか、すでに使用されています。アプリに戻って最初からやり直してください。',
  'errors.explanation.invalidLinkTicket':
    'このリンク要求は期限切れか、すでに使用されています。アカウントのページからもう一度リンクを始めてください。',
  'errors.explanation.providerUnavailable':
    '現在、サインインプロバイダーに接続できません。後でもう一度お試しいただくか、別の方法でサインインしてください。',
  'errors.explanation.upstreamRejected':
    'サインインプロバイダーからの応答を受け入れられませんでした。アプリに戻ってもう一度お試しください。',
  'errors.explanation.unknownProvider':
    'このサインイン方法はこの dauth では設定されていません。アプリに戻って別の方法を選んでください。',
  'errors.explanation.unavailable':
    'dauth は現在混み合っているか起動中です。しばらく待ってから、もう一度お試しください。',
  'errors.explanation.other':
    'dauth はこのリクエストを完了できませんでした。アプリに戻ってもう一度お試しください。',
} satisfies Translation<typeof en>;
