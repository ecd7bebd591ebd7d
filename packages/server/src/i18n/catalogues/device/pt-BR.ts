import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'device.title': 'Conectar um dispositivo',
  'device.login.heading': 'Entre no dauth',
  'device.login.intro': 'para conectar um dispositivo (um console, uma TV ou um launcher) à sua conta',
  'device.login.wrongPassword': 'E-mail ou senha incorretos.',
  'device.login.challengeFailed':
    'A verificação de que é uma pessoa entrando não terminou. Aguarde até que termine e entre novamente.',
  'device.login.accountGuarded':
    'Muitas tentativas de entrada com falha nesta conta. Digite, junto com sua senha, o código que enviamos por e-mail para a conta, ou aguarde a verificação terminar.',
  'device.login.emailCodeWrong':
    'O código enviado por e-mail está incorreto, expirou ou já foi usado. Digite o código mais recente que enviamos para a conta.',
  'device.login.stepEnded': 'Muitos códigos incorretos, ou a entrada demorou demais. Entre novamente.',
  'device.code.heading': 'Conectar um dispositivo',
  'device.code.intro': 'Digite o código exibido no seu console, TV ou launcher.',
  'device.code.label': 'Código',
  'device.code.continue': 'Continuar',
  'device.code.wrong': 'Este código está incorreto ou expirou. Confira o código no seu dispositivo.',
  'device.confirm.heading': 'Conectar <app>{name}</app>?',
  'device.confirm.checkCode': 'Confira se o seu dispositivo mostra o código <shown>{code}</shown>.',
  'device.confirm.receives': '<app>{name}</app> nesse dispositivo receberá {items}.',
  'device.confirm.deny': 'Negar',
  'device.confirm.allow': 'Permitir',
  'device.confirm.signedInAs': 'Conectado como <email>{account}</email>.',
  'device.done.connected': 'Dispositivo conectado',
  'device.done.connectedText':
    '<app>{name}</app> está entrando no seu dispositivo. Você já pode fechar esta página.',
  'device.done.denied': 'Dispositivo não conectado',
  'device.done.deniedText':
    'Você negou o acesso a <app>{name}</app>. Nada foi compartilhado. Você já pode fechar esta página.',
} satisfies Translation<typeof en>;
