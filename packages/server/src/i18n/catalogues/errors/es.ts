import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'errors.title': 'Error de inicio de sesión',
  'errors.heading': 'Este enlace de inicio de sesión no funciona',
  'errors.advice':
    'La aplicación que te envió aquí pidió algo que dauth no puede hacer, así que no se te ha devuelto a ella. Vuelve a la aplicación e inténtalo de nuevo; si sigue ocurriendo, avisa a su desarrollador.',
  'errors.technical': 'Error {status} {code}: {message}',
  'errors.explanation.redirectUriMismatch':
    'dauth no conoce esta aplicación (client_id), o la aplicación no registró la dirección a la que pidió volver (redirect_uri).',
  'errors.explanation.invalidRequest': 'El enlace de inicio de sesión está incompleto o mal formado.',
  'errors.explanation.rateLimited':
    'Demasiados intentos desde esta red. Espera un minuto y vuelve a intentarlo.',
  'errors.explanation.invalidCsrfToken':
    'El formulario caducó o no se envió desde la página de dauth. Recarga la página y vuelve a intentarlo.',
  'errors.explanation.invalidOrigin':
    'El formulario no se envió desde la página de dauth. Vuelve a abrir el enlace del correo y usa su botón.',
  'errors.explanation.accountExistsLinkRequired':
    'Ya existe una cuenta con esta dirección de correo. Inicia sesión en ella con tu contraseña o passkey y, después, vincula este método de inicio de sesión desde tu cuenta.',
  'errors.explanation.identityInUse':
    'Este método de inicio de sesión ya está vinculado a otra cuenta de dauth. Inicia sesión en esa cuenta o desvincúlalo allí primero.',
  'errors.explanation.flowBrowserMismatch':
    'Este inicio de sesión empezó en otro navegador o ventana. Vuelve a la aplicación y elige de nuevo el método de inicio de sesión aquí.',
  'errors.explanation.linkBrowserMismatch':
    'La vinculación se pidió en otro navegador, así que no se ha vinculado nada. Inicia sesión en tu cuenta aquí y vincula desde su página.',
  'errors.explanation.invalidState':
    'Este inicio de sesión caducó o ya se usó. Vuelve a la aplicación y empieza de nuevo.',
  'errors.explanation.invalidLinkTicket':
    'Esta solicitud de vinculación caducó o ya se usó. Vuelve a empezar la vinculación desde la página de tu cuenta.',
  'errors.explanation.providerUnavailable':
    'No se puede contactar ahora con el proveedor de inicio de sesión. Inténtalo más tarde o usa otra forma de iniciar sesión.',
  'errors.explanation.upstreamRejected':
    'No se pudo aceptar la respuesta del proveedor de inicio de sesión. Vuelve a la aplicación e inténtalo de nuevo.',
  'errors.explanation.unknownProvider':
    'Esta forma de iniciar sesión no está configurada en este dauth. Vuelve a la aplicación y elige otra.',
  'errors.explanation.unavailable':
    'dauth está ocupado o arrancando en este momento. Espera un poco y vuelve a intentarlo.',
  'errors.explanation.other':
    'dauth no pudo completar esta solicitud. Vuelve a la aplicación e inténtalo de nuevo.',
} satisfies Translation<typeof en>;
