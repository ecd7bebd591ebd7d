import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'account.secure.title': 'Protege tu cuenta',
  'account.secure.heading': '¿Proteger tu cuenta de dauth?',
  'account.secure.text':
    'Si no hiciste el cambio del que te avisó este correo, confírmalo abajo. dauth cerrará tu sesión en todas partes (todas las aplicaciones y todos los dispositivos), anulará todas las claves de sesión, deshará la passkey añadida o la identidad vinculada y rechazará cualquier inicio de sesión hasta que establezcas una contraseña nueva con un código que te enviaremos por correo.',
  'account.secure.confirm': 'Sí, proteger mi cuenta',
  'account.secured.title': 'Cuenta protegida',
  'account.secured.heading': 'Tu cuenta está protegida',
  'account.secured.text':
    'Todas las sesiones, los tokens de aplicaciones y las claves de sesión de tu cuenta de dauth han terminado, y el cambio notificado se ha deshecho. Para volver a iniciar sesión, restablece tu contraseña por correo electrónico.',
  'account.resetPassword': 'Restablecer la contraseña',
  'account.linkFailed.title': 'Enlace no válido',
  'account.linkFailed.heading': 'Este enlace no funciona',
  'account.secureLinkFailed.text':
    'El enlace es desconocido, ha caducado o ya se usó, y no se ha cambiado nada. Si crees que otra persona usa tu cuenta, restablece tu contraseña por correo electrónico: así se cierran todas las sesiones.',
  'account.verify.title': 'Confirma tu correo',
  'account.verify.heading': '¿Confirmar tu dirección de correo electrónico?',
  'account.verify.text':
    'Confirma que esta dirección pertenece a tu cuenta de dauth. Si no creaste una cuenta de dauth, cierra esta ventana: no pasará nada.',
  'account.verify.confirm': 'Sí, es mi dirección',
  'account.verified.title': 'Correo verificado',
  'account.verified.heading': 'Dirección de correo verificada',
  'account.verified.text':
    'Gracias: la dirección de correo de tu cuenta de dauth está verificada. Ya puedes cerrar esta ventana.',
  'account.verifyFailed.title': 'Verificación fallida',
  'account.verifyLinkFailed.text':
    'El enlace es desconocido, ha caducado o ya se usó. Inicia sesión y pide un nuevo correo de verificación, o introduce el código del más reciente.',
} satisfies Translation<typeof en>;
