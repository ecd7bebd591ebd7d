import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'account.secure.title': 'アカウントの保護',
  'account.secure.heading': 'dauth アカウントを保護しますか?',
  'account.secure.text':
    'このメールでお知らせした変更に心当たりがない場合は、下のボタンで確定してください。dauth はすべての場所 (すべてのアプリ、すべてのデバイス) からサインアウトし、すべてのセッションキーを無効にし、追加されたパスキーやリンクされた ID を取り消します。メールで届くコードを使って新しいパスワードを設定するまで、サインインはすべて拒否されます。',
  'account.secure.confirm': 'はい、アカウントを保護します',
  'account.secured.title': 'アカウントを保護しました',
  'account.secured.heading': 'アカウントは保護されました',
  'account.secured.text':
    'dauth アカウントのすべてのセッション、アプリのトークン、セッションキーを終了し、報告された変更を取り消しました。再びサインインするには、メールでパスワードをリセットしてください。',
  'account.resetPassword': 'パスワードをリセット',
  'account.linkFailed.title': '無効なリンク',
  'account.linkFailed.heading': 'このリンクは使用できません',
  'account.secureLinkFailed.text':
    'このリンクは不明か、期限切れか、すでに使用されています。何も変更されていません。他の誰かがアカウントを使っていると思われる場合は、メールでパスワードをリセットしてください。すべてのセッションがサインアウトされます。',
  'account.verify.title': 'メールアドレスの確認',
  'account.verify.heading': 'メールアドレスを確認しますか?',
  'account.verify.text':
    'このアドレスがあなたの dauth アカウントのものであることを確認してください。dauth アカウントを作成した覚えがない場合は、このウィンドウを閉じてください。何も起こりません。',
  'account.verify.confirm': 'はい、私のアドレスです',
  'account.verified.title': 'メールアドレス確認済み',
  'account.verified.heading': 'メールアドレスを確認しました',
  'account.verified.text':
    'ありがとうございます。dauth のメールアドレスが確認されました。このウィンドウは閉じてかまいません。',
  'account.verifyFailed.title': '確認に失敗しました',
  'account.verifyLinkFailed.text':
    'このリンクは不明か、期限切れか、すでに使用されています。サインインして確認メールを再送するか、最新のメールに記載されたコードを入力してください。',
} satisfies Translation<typeof en>;
