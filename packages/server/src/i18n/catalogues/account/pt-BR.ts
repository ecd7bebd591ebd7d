import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'account.secure.title': 'Proteja sua conta',
  'account.secure.heading': 'Proteger sua conta dauth?',
  'account.secure.text':
    'Se você não fez a alteração informada neste e-mail, confirme abaixo. O dauth vai desconectar você de todos os lugares (todos os apps e todos os dispositivos), encerrar todas as chaves de sessão, desfazer a passkey adicionada ou a identidade vinculada e recusar qualquer entrada até que você defina uma nova senha com um código enviado para o seu e-mail.',
  'account.secure.confirm': 'Sim, proteger minha conta',
  'account.secured.title': 'Conta protegida',
  'account.secured.heading': 'Sua conta está protegida',
  'account.secured.text':
    'Todas as sessões, tokens de apps e chaves de sessão da sua conta dauth foram encerrados, e a alteração informada foi desfeita. Para entrar novamente, redefina sua senha por e-mail.',
  'account.resetPassword': 'Redefinir sua senha',
  'account.linkFailed.title': 'Link inválido',
  'account.linkFailed.heading': 'Este link não funciona',
  'account.secureLinkFailed.text':
    'O link é desconhecido, expirou ou já foi usado, e nada foi alterado. Se você acha que outra pessoa está usando sua conta, redefina sua senha por e-mail: isso encerra todas as sessões.',
  'account.verify.title': 'Confirme seu e-mail',
  'account.verify.heading': 'Confirmar seu endereço de e-mail?',
  'account.verify.text':
    'Confirme que este endereço pertence à sua conta dauth. Se você não criou uma conta dauth, feche esta janela: nada acontecerá.',
  'account.verify.confirm': 'Sim, este é meu endereço',
  'account.verified.title': 'E-mail verificado',
  'account.verified.heading': 'Endereço de e-mail verificado',
  'account.verified.text':
    'Obrigado: o endereço de e-mail da sua conta dauth foi verificado. Você já pode fechar esta janela.',
  'account.verifyFailed.title': 'Falha na verificação',
  'account.verifyLinkFailed.text':
    'O link é desconhecido, expirou ou já foi usado. Entre e peça um novo e-mail de verificação, ou digite o código do mais recente.',
} satisfies Translation<typeof en>;
