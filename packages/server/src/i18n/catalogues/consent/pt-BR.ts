import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'consent.title': 'Permitir acesso',
  'consent.heading': 'Permitir o acesso de <app>{name}</app>?',
  'consent.receives': '<app>{name}</app> quer usar sua conta dauth e receberá {items}.',
  'consent.item.userId': 'seu ID de usuário',
  'consent.item.walletAddress': 'o endereço da sua carteira',
  'consent.item.email': 'seu endereço de e-mail',
  'consent.item.name': 'seu nome',
  'consent.item.tokens': 'tokens para agir em seu nome neste app',
  'consent.redirect': 'Depois, você voltará para <origin>{address}</origin>.',
  'consent.deny': 'Negar',
  'consent.allow': 'Permitir',
  'consent.signedInAs': 'Conectado como <email>{account}</email>.',
  'consent.useAnotherAccount': 'Usar outra conta',
  'consent.policy.intro': 'Se mais tarde você conceder acesso à sua carteira com seu PIN, <app>{name}</app>:',
  'consent.policy.tokenPerDay':
    'poderá gastar até {amount, number, ::.##################} {symbol} por dia da sua carteira até {until, date, medium}',
  'consent.policy.tokenPerDayBaseUnits':
    'poderá gastar até {amount, number} tokens de {token} por dia da sua carteira até {until, date, medium}',
  'consent.policy.etherPerDay':
    'poderá enviar até {perDay, number, ::.##################} ETH por dia da sua carteira até {until, date, medium}',
  'consent.policy.etherPerDayPerCall':
    'poderá enviar até {perDay, number, ::.##################} ETH por dia (no máximo {perCall, number, ::.##################} ETH por vez) da sua carteira até {until, date, medium}',
  'consent.policy.calls': 'poderá chamar {functions} a partir da sua carteira até {until, date, medium}',
  'consent.policy.contractFunctions': '{count, plural, one {# função} other {# funções}} de {contract}',
  'consent.policy.withinPolicy':
    'poderá agir a partir da sua carteira dentro da política do app até {until, date, medium}',
  'consent.policy.revocable':
    'Você pode revogar isso a qualquer momento; termina quando você revoga o acesso do app.',
} satisfies Translation<typeof en>;
