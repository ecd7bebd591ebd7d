import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'signin.title': 'Iniciar sesión',
  'signin.heading': 'Inicia sesión en dauth',
  'signin.toContinueTo': 'para continuar en <app>{name}</app>',
  'signin.unnamedApp': '(aplicación sin nombre)',
  'signin.email': 'Correo electrónico',
  'signin.password': 'Contraseña',
  'signin.submit': 'Iniciar sesión',
  'signin.usePasskey': 'Usar una llave de acceso',
  'signin.continueWith': 'Continuar con {provider}',
  'signin.createAccount': 'Crear una cuenta',
  'signin.forgotPassword': '¿Olvidaste tu contraseña?',
  'signin.emailCode': 'Código del correo que enviamos a la cuenta (si lo tienes)',
  'signin.backToSignIn': 'Volver al inicio de sesión',
  'signin.signup.title': 'Crea una cuenta de dauth',
  'signin.signup.password': 'Contraseña (al menos {min, plural, one {# carácter} other {# caracteres}})',
  'signin.signup.submit': 'Crear cuenta',
  'signin.reset.title': 'Restablece tu contraseña',
  'signin.reset.submit': 'Enviar código',
  'signin.resetConfirm.title': 'Elige una contraseña nueva',
  'signin.resetConfirm.code': 'Código del correo',
  'signin.resetConfirm.newPassword': 'Contraseña nueva',
  'signin.resetConfirm.submit': 'Guardar la contraseña nueva',
  'signin.notice.resetCodeSent':
    'Si alguna cuenta usa esta dirección, le hemos enviado un código. Escríbelo abajo.',
  'signin.notice.passwordChanged': 'Tu contraseña se cambió. Inicia sesión con la nueva.',
  'signin.notice.stepUp': 'Vuelve a iniciar sesión para añadir un segundo factor a tu cuenta.',
  'signin.error.wrongPassword': 'El correo o la contraseña no son correctos.',
  'signin.error.passkeyRefused': 'No se aceptó esa llave de acceso. Inténtalo de nuevo.',
  'signin.error.accountUnderGuessing':
    'Demasiados intentos fallidos de inicio de sesión en esta cuenta. Escribe el código que enviamos por correo a su titular, o vuelve a iniciar sesión y deja que este navegador termine su comprobación.',
  'signin.error.emailCodeWrong':
    'El código del correo no es correcto, caducó o ya se agotó. Escribe el código más reciente que enviamos, o deja el campo vacío y deja que este navegador termine su comprobación.',
  'signin.error.browserCheck':
    'La comprobación de que este es un navegador real no terminó. Inténtalo de nuevo; si sigue fallando, recarga la página.',
  'signin.error.emailTaken':
    'Ya existe una cuenta con este correo. Inicia sesión en ella o restablece su contraseña.',
  'signin.error.invalidEmail': 'Escribe una dirección de correo válida.',
  'signin.error.passwordTooShort':
    'La contraseña necesita al menos {min, plural, one {# carácter} other {# caracteres}}.',
  'signin.error.weakPassword':
    'Esta contraseña es demasiado fácil de adivinar. Elige una más larga, por ejemplo varias palabras sin relación entre sí.',
  'signin.error.commonPassword': 'Esta contraseña es una de las más comunes; elige otra.',
  'signin.error.resetCodeWrong':
    'El correo o el código no son correctos, caducaron o ya se usaron. Pide un código nuevo.',
  'signin.error.resetTooManyAttempts':
    'Demasiados códigos incorrectos. Abre el enlace del correo o pide un código nuevo.',
  'signin.error.mfaWrongCode':
    'Ese código no es correcto o ya se usó. Escribe el código actual o un código de recuperación.',
  'signin.error.mfaStepEnded':
    'Demasiados códigos incorrectos, o el inicio de sesión tardó demasiado. Vuelve a iniciar sesión.',
  'signin.error.other': 'No ha funcionado. Revisa lo que escribiste e inténtalo de nuevo.',
  'signin.check.unavailable':
    'No se pudo cargar la comprobación de que este es un navegador real: recarga la página o prueba con otro navegador.',
  'signin.check.verifying': 'Comprobando este navegador (unos segundos)…',
  'signin.check.verified': 'Comprobado: enviando el formulario…',
  'signin.check.failed': 'La comprobación del navegador falló: marca la casilla para intentarlo de nuevo.',
  'signin.check.expired': 'La comprobación del navegador caducó: marca la casilla para intentarlo de nuevo.',
  'signin.check.label': 'No soy un robot',
  'signin.check.loading': 'Cargando…',
  'signin.check.required': 'Marca la casilla primero.',
  'signin.check.done': 'Comprobado',
  'signin.check.wait': 'Comprobando este navegador… espera, por favor.',
  'signin.check.logo': 'ALTCHA (su sitio web)',
  'signin.mfa.title': 'Inicio de sesión en dos pasos',
  'signin.mfa.heading': 'Escribe tu código',
  'signin.mfa.codeLabel': 'Código de autenticación',
  'signin.mfa.codeHelp':
    'El código de {digits, number} dígitos de tu aplicación de autenticación, o uno de tus códigos de recuperación.',
  'signin.mfa.submit': 'Verificar',
  'signin.enrol.heading': 'Añade un segundo factor',
  'signin.enrol.intro':
    'Este inicio de sesión necesita dos factores. Escanea el código con una aplicación de autenticación y escribe el código que muestre.',
  'signin.enrol.qr': 'Código QR del enlace de configuración del autenticador',
  'signin.enrol.byHand': 'O añade este enlace de configuración a mano:',
  'signin.enrol.codeLabel': 'Código de la aplicación',
  'signin.enrol.codeHelp':
    'El código de {digits, number} dígitos que muestra ahora tu aplicación de autenticación.',
  'signin.enrol.submit': 'Activar',
  'signin.recovery.title': 'Códigos de recuperación',
  'signin.recovery.heading': 'Guarda tus códigos de recuperación',
  'signin.recovery.intro':
    'Cada uno te permite iniciar sesión una vez si pierdes tu autenticador. Solo se muestran ahora: anótalos o guárdalos en un gestor de contraseñas.',
  'signin.recovery.continue': 'Ya los guardé, continuar',
  'signin.completion.title': 'De vuelta a la aplicación',
  'signin.completion.returning': 'Volviendo a la aplicación…',
  'signin.completion.done': 'Listo. Puedes cerrar esta ventana.',
  'signin.completion.continue': 'Continuar',
  'signin.logout.title': 'Cerrar sesión',
  'signin.logout.heading': '¿Cerrar sesión en dauth?',
  'signin.logout.appAsks': '<app>{name}</app> solicita cerrar tu sesión.',
  'signin.logout.explain':
    'Tendrás que volver a iniciar sesión la próxima vez que una aplicación pida tu cuenta de dauth.',
  'signin.logout.submit': 'Cerrar sesión',
  'signin.loggedOut.title': 'Sesión cerrada',
  'signin.loggedOut.body': 'Cerraste sesión en dauth. Puedes cerrar esta ventana.',
} satisfies Translation<typeof en>;
