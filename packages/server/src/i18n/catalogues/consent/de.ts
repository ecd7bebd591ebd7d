import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'consent.title': 'Zugriff erlauben',
  'consent.heading': '<app>{name}</app> Zugriff erlauben?',
  'consent.receives': '<app>{name}</app> möchte Ihr dauth-Konto verwenden und erhält dafür {items}.',
  'consent.item.userId': 'Ihre Benutzer-ID',
  'consent.item.walletAddress': 'Ihre Wallet-Adresse',
  'consent.item.email': 'Ihre E-Mail-Adresse',
  'consent.item.name': 'Ihren Namen',
  'consent.item.tokens': 'Tokens, um in dieser App in Ihrem Namen zu handeln',
  'consent.redirect': 'Danach werden Sie zu <origin>{address}</origin> zurückgeleitet.',
  'consent.deny': 'Ablehnen',
  'consent.allow': 'Erlauben',
  'consent.signedInAs': 'Angemeldet als <email>{account}</email>.',
  'consent.useAnotherAccount': 'Anderes Konto verwenden',
  'consent.policy.intro':
    'Wenn Sie der App später mit Ihrer PIN Zugriff auf Ihre Wallet gewähren, kann <app>{name}</app>:',
  'consent.policy.tokenPerDay':
    'bis zu {amount, number, ::.##################} {symbol} pro Tag aus Ihrer Wallet ausgeben, gültig bis {until, date, medium}',
  'consent.policy.tokenPerDayBaseUnits':
    'bis zu {amount, number} Token von {token} pro Tag aus Ihrer Wallet ausgeben, gültig bis {until, date, medium}',
  'consent.policy.etherPerDay':
    'bis zu {perDay, number, ::.##################} ETH pro Tag aus Ihrer Wallet senden, gültig bis {until, date, medium}',
  'consent.policy.etherPerDayPerCall':
    'bis zu {perDay, number, ::.##################} ETH pro Tag (höchstens {perCall, number, ::.##################} ETH auf einmal) aus Ihrer Wallet senden, gültig bis {until, date, medium}',
  'consent.policy.calls': '{functions} aus Ihrer Wallet aufrufen, gültig bis {until, date, medium}',
  'consent.policy.contractFunctions': '{count, plural, one {# Funktion} other {# Funktionen}} von {contract}',
  'consent.policy.withinPolicy':
    'im Rahmen ihrer Richtlinie aus Ihrer Wallet handeln, gültig bis {until, date, medium}',
  'consent.policy.revocable':
    'Sie können dies jederzeit widerrufen; es endet, wenn Sie der App den Zugriff entziehen.',
} satisfies Translation<typeof en>;
