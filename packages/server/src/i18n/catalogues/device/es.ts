import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'device.title': 'Conectar un dispositivo',
  'device.login.heading': 'Inicia sesión en dauth',
  'device.login.intro': 'para conectar un dispositivo (una consola, un televisor o un launcher) a tu cuenta',
  'device.login.wrongPassword': 'El correo electrónico o la contraseña no son correctos.',
  'device.login.challengeFailed':
    'La comprobación de que quien inicia sesión es una persona no terminó. Espera a que termine y vuelve a iniciar sesión.',
  'device.login.accountGuarded':
    'Demasiados inicios de sesión fallidos en esta cuenta. Introduce junto con tu contraseña el código que enviamos por correo a la cuenta, o espera a que termine la comprobación.',
  'device.login.emailCodeWrong':
    'El código enviado por correo es incorrecto, caducó o ya se usó. Introduce el código más reciente que enviamos a la cuenta.',
  'device.login.stepEnded':
    'Demasiados códigos incorrectos, o el inicio de sesión tardó demasiado. Vuelve a iniciar sesión.',
  'device.code.heading': 'Conectar un dispositivo',
  'device.code.intro': 'Introduce el código que muestra tu consola, televisor o launcher.',
  'device.code.label': 'Código',
  'device.code.continue': 'Continuar',
  'device.code.wrong': 'Este código es incorrecto o ha caducado. Comprueba el código en tu dispositivo.',
  'device.confirm.heading': '¿Conectar <app>{name}</app>?',
  'device.confirm.checkCode': 'Comprueba que tu dispositivo muestra el código <shown>{code}</shown>.',
  'device.confirm.receives': '<app>{name}</app> en ese dispositivo recibirá {items}.',
  'device.confirm.deny': 'Denegar',
  'device.confirm.allow': 'Permitir',
  'device.confirm.signedInAs': 'Sesión iniciada como <email>{account}</email>.',
  'device.done.connected': 'Dispositivo conectado',
  'device.done.connectedText':
    '<app>{name}</app> está iniciando sesión en tu dispositivo. Ya puedes cerrar esta página.',
  'device.done.denied': 'Dispositivo no conectado',
  'device.done.deniedText':
    'Has denegado el acceso a <app>{name}</app>. No se ha compartido nada. Ya puedes cerrar esta página.',
} satisfies Translation<typeof en>;
