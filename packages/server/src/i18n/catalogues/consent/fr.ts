import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'consent.title': 'Autoriser l’accès',
  'consent.heading': 'Autoriser <app>{name}</app>\u00a0?',
  'consent.receives':
    '<app>{name}</app> demande à utiliser votre compte dauth\u00a0: l’application recevra {items}.',
  'consent.item.userId': 'votre identifiant utilisateur',
  'consent.item.walletAddress': 'l’adresse de votre portefeuille',
  'consent.item.email': 'votre adresse e-mail',
  'consent.item.name': 'votre nom',
  'consent.item.tokens': 'des jetons pour agir en votre nom dans cette application',
  'consent.redirect': 'Vous serez ensuite renvoyé vers <origin>{address}</origin>.',
  'consent.deny': 'Refuser',
  'consent.allow': 'Autoriser',
  'consent.signedInAs': 'Connecté en tant que <email>{account}</email>.',
  'consent.useAnotherAccount': 'Utiliser un autre compte',
  'consent.policy.intro':
    'Si vous lui accordez plus tard l’accès à votre portefeuille avec votre PIN, <app>{name}</app>\u00a0:',
  'consent.policy.tokenPerDay':
    'pourra dépenser jusqu’à {amount, number, ::.##################} {symbol} par jour depuis votre portefeuille, jusqu’au {until, date, medium}',
  'consent.policy.tokenPerDayBaseUnits':
    'pourra dépenser jusqu’à {amount, number} jetons de {token} par jour depuis votre portefeuille, jusqu’au {until, date, medium}',
  'consent.policy.etherPerDay':
    'pourra envoyer jusqu’à {perDay, number, ::.##################} ETH par jour depuis votre portefeuille, jusqu’au {until, date, medium}',
  'consent.policy.etherPerDayPerCall':
    'pourra envoyer jusqu’à {perDay, number, ::.##################} ETH par jour (au plus {perCall, number, ::.##################} ETH à la fois) depuis votre portefeuille, jusqu’au {until, date, medium}',
  'consent.policy.calls':
    'pourra appeler {functions} depuis votre portefeuille, jusqu’au {until, date, medium}',
  'consent.policy.contractFunctions': '{count, plural, one {# fonction} other {# fonctions}} de {contract}',
  'consent.policy.withinPolicy':
    'pourra agir depuis votre portefeuille dans les limites de sa politique, jusqu’au {until, date, medium}',
  'consent.policy.revocable':
    'Vous pouvez révoquer cet accès à tout moment\u00a0; il prend fin lorsque vous révoquez l’application.',
} satisfies Translation<typeof en>;
