import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'mail.when': 'Cuándo: {at, date, utc}',
  'mail.network': 'Red: {network}',
  'mail.lastNetwork': 'Red del último intento: {network}',
  'mail.device': 'Dispositivo: {device}',
  'mail.unknown': 'desconocido',

  'mail.code.subject': 'Tu código de verificación de dauth',
  'mail.code.code': 'Tu código de verificación de dauth es {code}.',
  'mail.code.pinRecover':
    'Úsalo en {minutes, plural, one {# minuto} other {# minutos}} para recuperar el PIN de tu monedero (esto le da a tu monedero una nueva clave de propietario).',
  'mail.code.notYou': 'Si no lo pediste, ignora este correo y cambia tu contraseña.',

  'mail.address.subjectSignup': 'Confirma tu dirección de correo de dauth',
  'mail.address.subjectResend': 'Tu código de verificación de correo de dauth',
  'mail.address.intro':
    'Confirma que esta es tu dirección de correo para dauth: abre este enlace y pulsa su botón',
  'mail.address.code': 'o introduce el código {code} donde te registraste.',
  'mail.address.validity':
    'Ambos funcionan una sola vez, durante {hours, plural, one {# hora} other {# horas}}.',
  'mail.address.notYou': 'Si no creaste una cuenta de dauth, ignora este correo.',

  'mail.reset.subject': 'Restablece tu contraseña de dauth',
  'mail.reset.code': 'Tu código para restablecer la contraseña de dauth es {code}.',
  'mail.reset.enter':
    'Introdúcelo en {minutes, plural, one {# minuto} other {# minutos}} en el formulario de restablecimiento, o abre:',
  'mail.reset.notYou': 'Si no lo pediste, ignora este correo: tu contraseña seguirá siendo la misma.',

  'mail.guessing.subject': 'Alguien está intentando adivinar la contraseña de tu cuenta de dauth',
  'mail.guessing.intro':
    'Tu cuenta de dauth ha tenido muchos inicios de sesión fallidos en los últimos minutos, posiblemente desde muchos lugares. Mientras continúen, para iniciar sesión hará falta este código además de la contraseña:',
  'mail.guessing.code': 'Tu código de inicio de sesión es {code}.',
  'mail.guessing.validity':
    'Funciona durante {minutes, plural, one {# minuto} other {# minutos}}. Introdúcelo en la página de inicio de sesión junto con tu contraseña.',
  'mail.guessing.notYou':
    'Si no fuiste tú, no se ha perdido nada: la contraseña por sí sola ya no abre la cuenta.',
  'mail.guessing.weak':
    'Si tu contraseña es débil o la usas en otros sitios, cámbiala después de iniciar sesión.',

  'mail.security.passkeyAdded.subject': 'Se añadió una llave de acceso a tu cuenta de dauth',
  'mail.security.passkeyAdded.body':
    'Se añadió una llave de acceso a tu cuenta de dauth (credencial {credential}…).',
  'mail.security.passkeyRemoved.subject': 'Se eliminó una llave de acceso de tu cuenta de dauth',
  'mail.security.passkeyRemoved.body':
    'Se eliminó una llave de acceso de tu cuenta de dauth (credencial {credential}…).',
  'mail.security.identityLinked.subject': 'Se vinculó una identidad de inicio de sesión a tu cuenta de dauth',
  'mail.security.identityLinked.body':
    'Tu cuenta de {provider} se vinculó a tu cuenta de dauth: ahora puede iniciar sesión en ella.',
  'mail.security.identityUnlinked.subject':
    'Se desvinculó una identidad de inicio de sesión de tu cuenta de dauth',
  'mail.security.identityUnlinked.body': 'Se eliminó una identidad vinculada de tu cuenta de dauth.',
  'mail.security.guestUpgraded.subject': 'Tu cuenta de invitado de dauth se ha convertido en cuenta completa',
  'mail.security.guestUpgraded.body':
    'Tu cuenta de invitado se ha convertido en cuenta completa: su secreto de dispositivo ya no sirve para iniciar sesión.',
  'mail.security.passwordChanged.subject': 'Se cambió tu contraseña de dauth',
  'mail.security.passwordChanged.body':
    'Se cambió la contraseña de tu cuenta de dauth. Se cerraron todas las demás sesiones.',
  'mail.security.passwordReset.subject': 'Se restableció tu contraseña de dauth',
  'mail.security.passwordReset.body':
    'La contraseña de tu cuenta de dauth se restableció por correo. Se cerraron todas las sesiones.',
  'mail.security.totpEnabled.subject': 'Se añadió una app de autenticación a tu cuenta de dauth',
  'mail.security.totpEnabled.body':
    'Se activó el inicio de sesión en dos pasos con una app de autenticación (TOTP) en tu cuenta de dauth.',
  'mail.security.totpRemoved.subject': 'Se eliminó la app de autenticación de tu cuenta de dauth',
  'mail.security.totpRemoved.body':
    'Se desactivó el inicio de sesión en dos pasos con una app de autenticación (TOTP) en tu cuenta de dauth.',
  'mail.security.sessionKeyGranted.subject': 'Una app recibió una clave de sesión para tu monedero de dauth',
  'mail.security.sessionKeyGranted.body':
    'La app {app} recibió una clave de sesión: ahora puede operar con tu monedero dentro de su política.',
  'mail.security.waysInRemoved.subject':
    'Tu dirección de correo de dauth está confirmada: se eliminaron los métodos de inicio de sesión anteriores',
  'mail.security.waysInRemoved.body':
    'Esta dirección de correo se ha confirmado por primera vez para tu cuenta de dauth. Se eliminaron todas las formas de iniciar sesión añadidas antes de esta confirmación y se cerraron todas las sesiones, tokens de apps y claves de sesión de la cuenta, para que nadie que usara la dirección antes que tú pueda conservar el acceso.',
  'mail.security.waysInRemoved.list': 'Eliminado:',
  'mail.security.waysInRemoved.nothing': 'No hubo que eliminar nada aparte de las sesiones.',
  'mail.security.removed.passkey':
    'una llave de acceso (credencial {credential}…, añadida el {added, date, utc})',
  'mail.security.removed.identity': 'la identidad de {provider} vinculada (añadida el {added, date, utc})',
  'mail.security.removed.namedIdentity':
    'la identidad de {provider} vinculada «{name}» (añadida el {added, date, utc})',
  'mail.security.removed.guestSecret': 'el secreto de dispositivo de invitado',
  'mail.security.removed.totp': 'la app de autenticación (TOTP) y sus códigos de recuperación',
  'mail.security.wasYou': 'Si fuiste tú, no tienes que hacer nada.',
  'mail.security.notYou':
    'Si no fuiste tú, abre este enlace y confirma: cierra tu sesión en todas partes, anula todas las claves de sesión, deshace la llave de acceso o identidad añadida y te pide que establezcas una nueva contraseña por correo.',
  'mail.security.linkValidity':
    'El enlace funciona una sola vez, durante {days, plural, one {# día} other {# días}}.',

  'mail.invite.subject': 'Te han invitado a {org} en dauth',
  'mail.invite.body':
    'Te han invitado a unirte a la organización «{org}» en dauth como {role, select, admin {administrador} developer {desarrollador} viewer {lector} other {{role}}}.',
  'mail.invite.accept': 'Acepta la invitación (con la sesión iniciada con esta dirección de correo):',
  'mail.invite.token': 'O pega este token de invitación en la consola o en `dauth org accept`:',
  'mail.invite.expires': 'La invitación caduca el {expires, date, utc} y funciona una sola vez.',
  'mail.invite.notYou': 'Si no la esperabas, ignora este correo.',
} satisfies Translation<typeof en>;
