import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'consent.title': 'Permitir acceso',
  'consent.heading': '¿Permitir el acceso a <app>{name}</app>?',
  'consent.receives': '<app>{name}</app> quiere usar tu cuenta de dauth: recibirá {items}.',
  'consent.item.userId': 'tu ID de usuario',
  'consent.item.walletAddress': 'la dirección de tu billetera',
  'consent.item.email': 'tu dirección de correo electrónico',
  'consent.item.name': 'tu nombre',
  'consent.item.tokens': 'tokens para actuar en tu nombre en esta aplicación',
  'consent.redirect': 'Después volverás a <origin>{address}</origin>.',
  'consent.deny': 'Denegar',
  'consent.allow': 'Permitir',
  'consent.signedInAs': 'Sesión iniciada como <email>{account}</email>.',
  'consent.useAnotherAccount': 'Usar otra cuenta',
  'consent.policy.intro': 'Si más adelante le concedes acceso a tu billetera con tu PIN, <app>{name}</app>:',
  'consent.policy.tokenPerDay':
    'podrá gastar hasta {amount, number, ::.##################} {symbol} al día de tu billetera hasta el {until, date, medium}',
  'consent.policy.tokenPerDayBaseUnits':
    'podrá gastar hasta {amount, number} tokens de {token} al día de tu billetera hasta el {until, date, medium}',
  'consent.policy.etherPerDay':
    'podrá enviar hasta {perDay, number, ::.##################} ETH al día desde tu billetera hasta el {until, date, medium}',
  'consent.policy.etherPerDayPerCall':
    'podrá enviar hasta {perDay, number, ::.##################} ETH al día (como máximo {perCall, number, ::.##################} ETH cada vez) desde tu billetera hasta el {until, date, medium}',
  'consent.policy.calls': 'podrá llamar a {functions} desde tu billetera hasta el {until, date, medium}',
  'consent.policy.contractFunctions': '{count, plural, one {# función} other {# funciones}} de {contract}',
  'consent.policy.withinPolicy':
    'podrá actuar desde tu billetera dentro de su política hasta el {until, date, medium}',
  'consent.policy.revocable':
    'Puedes revocarlo en cualquier momento; termina cuando revocas el acceso de la aplicación.',
} satisfies Translation<typeof en>;
