import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'mail.when': '日時: {at, date, utc}',
  'mail.network': 'ネットワーク: {network}',
  'mail.lastNetwork': '最後の試行のネットワーク: {network}',
  'mail.device': 'デバイス: {device}',
  'mail.unknown': '不明',

  'mail.code.subject': 'dauth の確認コード',
  'mail.code.code': 'dauth の確認コードは {code} です。',
  'mail.code.pinRecover':
    '{minutes, plural, other {#分}}以内にこのコードを使って、ウォレットの PIN を復元してください（ウォレットに新しい所有者キーが設定されます）。',
  'mail.code.notYou': '心当たりがない場合は、このメールを無視してパスワードを変更してください。',

  'mail.address.subjectSignup': 'dauth のメールアドレスを確認してください',
  'mail.address.subjectResend': 'dauth のメールアドレス確認コード',
  'mail.address.intro':
    'これが dauth で使うあなたのメールアドレスであることを確認してください。次のリンクを開き、表示されたボタンを押してください',
  'mail.address.code': 'または、登録した画面でコード {code} を入力してください。',
  'mail.address.validity': 'リンクとコードはどちらも1回限り、{hours, plural, other {#時間}}有効です。',
  'mail.address.notYou': 'dauth のアカウントを作成した覚えがない場合は、このメールを無視してください。',

  'mail.reset.subject': 'dauth のパスワードを再設定してください',
  'mail.reset.code': 'dauth のパスワード再設定コードは {code} です。',
  'mail.reset.enter':
    '{minutes, plural, other {#分}}以内に再設定フォームに入力するか、次のリンクを開いてください:',
  'mail.reset.notYou': '心当たりがない場合は、このメールを無視してください。パスワードは変更されません。',

  'mail.guessing.subject': 'あなたの dauth アカウントのパスワードを推測しようとしている人がいます',
  'mail.guessing.intro':
    'ここ数分の間に、あなたの dauth アカウントへのサインインが何度も失敗しました。複数の場所から試みられている可能性があります。これが収まるまで、サインインにはパスワードに加えて次のコードが必要です:',
  'mail.guessing.code': 'サインインコードは {code} です。',
  'mail.guessing.validity':
    'このコードは{minutes, plural, other {#分}}間有効です。サインインページでパスワードと一緒に入力してください。',
  'mail.guessing.notYou': 'あなたでなくても心配はいりません。パスワードだけではもうアカウントを開けません。',
  'mail.guessing.weak':
    'パスワードが弱い場合や他のサービスでも使っている場合は、サインイン後に変更してください。',

  'mail.security.passkeyAdded.subject': 'dauth アカウントにパスキーが追加されました',
  'mail.security.passkeyAdded.body':
    'あなたの dauth アカウントにパスキーが追加されました（認証情報 {credential}…）。',
  'mail.security.passkeyRemoved.subject': 'dauth アカウントからパスキーが削除されました',
  'mail.security.passkeyRemoved.body':
    'あなたの dauth アカウントからパスキーが削除されました（認証情報 {credential}…）。',
  'mail.security.identityLinked.subject': 'dauth アカウントにサインイン用の ID が連携されました',
  'mail.security.identityLinked.body':
    'あなたの {provider} アカウントが dauth アカウントに連携されました。今後はそのアカウントで dauth にサインインできます。',
  'mail.security.identityUnlinked.subject': 'dauth アカウントからサインイン用の ID の連携が解除されました',
  'mail.security.identityUnlinked.body': 'あなたの dauth アカウントから連携済みの ID が削除されました。',
  'mail.security.guestUpgraded.subject':
    'dauth のゲストアカウントが通常のアカウントにアップグレードされました',
  'mail.security.guestUpgraded.body':
    'ゲストアカウントがアップグレードされました。デバイスのシークレットではもうサインインできません。',
  'mail.security.passwordChanged.subject': 'dauth のパスワードが変更されました',
  'mail.security.passwordChanged.body':
    'あなたの dauth アカウントのパスワードが変更されました。他のすべてのセッションはサインアウトされました。',
  'mail.security.passwordReset.subject': 'dauth のパスワードが再設定されました',
  'mail.security.passwordReset.body':
    'あなたの dauth アカウントのパスワードがメールで再設定されました。すべてのセッションはサインアウトされました。',
  'mail.security.totpEnabled.subject': 'dauth アカウントに認証アプリが追加されました',
  'mail.security.totpEnabled.body':
    'あなたの dauth アカウントで、認証アプリ（TOTP）による2段階サインインが有効になりました。',
  'mail.security.totpRemoved.subject': 'dauth アカウントから認証アプリが削除されました',
  'mail.security.totpRemoved.body':
    'あなたの dauth アカウントで、認証アプリ（TOTP）による2段階サインインが無効になりました。',
  'mail.security.sessionKeyGranted.subject': 'アプリに dauth ウォレットのセッションキーが付与されました',
  'mail.security.sessionKeyGranted.body':
    'アプリ {app} にセッションキーが付与されました。このアプリは、そのポリシーの範囲内であなたのウォレットを操作できるようになりました。',
  'mail.security.waysInRemoved.subject':
    'dauth のメールアドレスが確認されました: 以前のサインイン方法は削除されました',
  'mail.security.waysInRemoved.body':
    'このメールアドレスが、あなたの dauth アカウントで初めて確認されました。この確認より前に追加されたサインイン方法はすべて削除され、アカウントのすべてのセッション、アプリのトークン、セッションキーも終了しました。あなたより前にこのアドレスを使っていた人がアクセスを保持できないようにするためです。',
  'mail.security.waysInRemoved.list': '削除されたもの:',
  'mail.security.waysInRemoved.nothing': 'セッション以外に削除が必要なものはありませんでした。',
  'mail.security.removed.passkey': 'パスキー（認証情報 {credential}…、{added, date, utc} に追加）',
  'mail.security.removed.identity': '連携済みの {provider} ID（{added, date, utc} に追加）',
  'mail.security.removed.namedIdentity': '連携済みの {provider} ID「{name}」（{added, date, utc} に追加）',
  'mail.security.removed.guestSecret': 'ゲスト用のデバイスシークレット',
  'mail.security.removed.totp': '認証アプリ（TOTP）とそのリカバリーコード',
  'mail.security.wasYou': 'あなたご自身による操作であれば、何もする必要はありません。',
  'mail.security.notYou':
    '心当たりがない場合は、次のリンクを開いて確定してください。すべての場所からサインアウトし、すべてのセッションキーを終了し、追加されたパスキーや ID を取り消したうえで、メールで新しいパスワードを設定するよう求めます。',
  'mail.security.linkValidity': 'このリンクは1回限り、{days, plural, other {#日間}}有効です。',

  'mail.invite.subject': 'dauth の {org} に招待されました',
  'mail.invite.body':
    'dauth の組織「{org}」に{role, select, admin {管理者} developer {開発者} viewer {閲覧者} other {{role}}}として参加するよう招待されました。',
  'mail.invite.accept': '招待を承諾してください（このメールアドレスでサインインした状態で）:',
  'mail.invite.token': 'または、この招待トークンをコンソールか `dauth org accept` に貼り付けてください:',
  'mail.invite.expires': 'この招待の有効期限は {expires, date, utc} で、1回だけ使用できます。',
  'mail.invite.notYou': '心当たりがない場合は、このメールを無視してください。',
} satisfies Translation<typeof en>;
