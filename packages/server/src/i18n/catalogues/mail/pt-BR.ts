import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'mail.when': 'Quando: {at, date, utc}',
  'mail.network': 'Rede: {network}',
  'mail.lastNetwork': 'Rede da última tentativa: {network}',
  'mail.device': 'Dispositivo: {device}',
  'mail.unknown': 'desconhecido',

  'mail.code.subject': 'Seu código de verificação do dauth',
  'mail.code.code': 'Seu código de verificação do dauth é {code}.',
  'mail.code.pinRecover':
    'Use-o em até {minutes, plural, one {# minuto} other {# minutos}} para recuperar o PIN da sua carteira (isso dá à sua carteira uma nova chave de proprietário).',
  'mail.code.notYou': 'Se você não pediu, ignore este e-mail e troque sua senha.',

  'mail.address.subjectSignup': 'Confirme seu endereço de e-mail do dauth',
  'mail.address.subjectResend': 'Seu código de verificação de e-mail do dauth',
  'mail.address.intro':
    'Confirme que este é o seu endereço de e-mail no dauth: abra este link e clique no botão da página',
  'mail.address.code': 'ou digite o código {code} onde você se cadastrou.',
  'mail.address.validity':
    'Os dois funcionam uma única vez, por {hours, plural, one {# hora} other {# horas}}.',
  'mail.address.notYou': 'Se você não criou uma conta no dauth, ignore este e-mail.',

  'mail.reset.subject': 'Redefina sua senha do dauth',
  'mail.reset.code': 'Seu código para redefinir a senha do dauth é {code}.',
  'mail.reset.enter':
    'Digite-o em até {minutes, plural, one {# minuto} other {# minutos}} no formulário de redefinição, ou abra:',
  'mail.reset.notYou': 'Se você não pediu, ignore este e-mail: sua senha continua a mesma.',

  'mail.guessing.subject': 'Alguém está tentando adivinhar a senha da sua conta do dauth',
  'mail.guessing.intro':
    'Sua conta do dauth teve muitas tentativas de login malsucedidas nos últimos minutos, possivelmente de vários lugares. Enquanto elas continuarem, para entrar será preciso este código além da senha:',
  'mail.guessing.code': 'Seu código de login é {code}.',
  'mail.guessing.validity':
    'Ele funciona por {minutes, plural, one {# minuto} other {# minutos}}. Digite-o na página de login junto com sua senha.',
  'mail.guessing.notYou': 'Se não foi você, nada está perdido: a senha sozinha não abre mais a conta.',
  'mail.guessing.weak': 'Se sua senha for fraca ou usada em outros lugares, troque-a depois de entrar.',

  'mail.security.passkeyAdded.subject': 'Uma chave de acesso foi adicionada à sua conta do dauth',
  'mail.security.passkeyAdded.body':
    'Uma chave de acesso foi adicionada à sua conta do dauth (credencial {credential}…).',
  'mail.security.passkeyRemoved.subject': 'Uma chave de acesso foi removida da sua conta do dauth',
  'mail.security.passkeyRemoved.body':
    'Uma chave de acesso foi removida da sua conta do dauth (credencial {credential}…).',
  'mail.security.identityLinked.subject': 'Uma identidade de login foi vinculada à sua conta do dauth',
  'mail.security.identityLinked.body':
    'Sua conta {provider} foi vinculada à sua conta do dauth: agora ela pode entrar nela.',
  'mail.security.identityUnlinked.subject': 'Uma identidade de login foi desvinculada da sua conta do dauth',
  'mail.security.identityUnlinked.body': 'Uma identidade vinculada foi removida da sua conta do dauth.',
  'mail.security.guestUpgraded.subject': 'Sua conta de convidado do dauth virou uma conta completa',
  'mail.security.guestUpgraded.body':
    'Sua conta de convidado virou uma conta completa: o segredo do dispositivo não serve mais para entrar.',
  'mail.security.passwordChanged.subject': 'Sua senha do dauth foi alterada',
  'mail.security.passwordChanged.body':
    'A senha da sua conta do dauth foi alterada. Todas as outras sessões foram encerradas.',
  'mail.security.passwordReset.subject': 'Sua senha do dauth foi redefinida',
  'mail.security.passwordReset.body':
    'A senha da sua conta do dauth foi redefinida por e-mail. Todas as sessões foram encerradas.',
  'mail.security.totpEnabled.subject': 'Um app autenticador foi adicionado à sua conta do dauth',
  'mail.security.totpEnabled.body':
    'O login em duas etapas com um app autenticador (TOTP) foi ativado na sua conta do dauth.',
  'mail.security.totpRemoved.subject': 'O app autenticador foi removido da sua conta do dauth',
  'mail.security.totpRemoved.body':
    'O login em duas etapas com um app autenticador (TOTP) foi desativado na sua conta do dauth.',
  'mail.security.sessionKeyGranted.subject': 'Um app recebeu uma chave de sessão da sua carteira do dauth',
  'mail.security.sessionKeyGranted.body':
    'O app {app} recebeu uma chave de sessão: agora ele pode agir na sua carteira dentro da política dele.',
  'mail.security.waysInRemoved.subject':
    'Seu endereço de e-mail do dauth foi confirmado: os métodos de login anteriores foram removidos',
  'mail.security.waysInRemoved.body':
    'Este endereço de e-mail foi confirmado para a sua conta do dauth pela primeira vez. Todas as formas de entrar adicionadas antes desta confirmação foram removidas, e todas as sessões, tokens de apps e chaves de sessão da conta foram encerrados, para que ninguém que tenha usado o endereço antes de você mantenha o acesso.',
  'mail.security.waysInRemoved.list': 'Removido:',
  'mail.security.waysInRemoved.nothing': 'Nada além das sessões precisou ser removido.',
  'mail.security.removed.passkey':
    'uma chave de acesso (credencial {credential}…, adicionada em {added, date, utc})',
  'mail.security.removed.identity': 'a identidade {provider} vinculada (adicionada em {added, date, utc})',
  'mail.security.removed.namedIdentity':
    'a identidade {provider} vinculada “{name}” (adicionada em {added, date, utc})',
  'mail.security.removed.guestSecret': 'o segredo de dispositivo de convidado',
  'mail.security.removed.totp': 'o app autenticador (TOTP) e seus códigos de recuperação',
  'mail.security.wasYou': 'Se foi você, não é preciso fazer nada.',
  'mail.security.notYou':
    'Se não foi você, abra este link e confirme: ele encerra suas sessões em todos os lugares, revoga todas as chaves de sessão, desfaz a chave de acesso ou identidade adicionada e pede que você defina uma nova senha por e-mail.',
  'mail.security.linkValidity':
    'O link funciona uma única vez, por {days, plural, one {# dia} other {# dias}}.',

  'mail.invite.subject': 'Você foi convidado para {org} no dauth',
  'mail.invite.body':
    'Você foi convidado a entrar na organização “{org}” no dauth como {role, select, admin {administrador} developer {desenvolvedor} viewer {leitor} other {{role}}}.',
  'mail.invite.accept': 'Aceite o convite (conectado com este endereço de e-mail):',
  'mail.invite.token': 'Ou cole este token de convite no console ou em `dauth org accept`:',
  'mail.invite.expires': 'O convite expira em {expires, date, utc} e funciona uma única vez.',
  'mail.invite.notYou': 'Se você não esperava por ele, ignore este e-mail.',
} satisfies Translation<typeof en>;
