import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'consent.title': 'Разрешение доступа',
  'consent.heading': 'Разрешить доступ приложению <app>{name}</app>?',
  'consent.receives': '<app>{name}</app> запрашивает доступ к вашему аккаунту dauth и получит {items}.',
  'consent.item.userId': 'ваш идентификатор пользователя',
  'consent.item.walletAddress': 'адрес вашего кошелька',
  'consent.item.email': 'ваш адрес электронной почты',
  'consent.item.name': 'ваше имя',
  'consent.item.tokens': 'токены для действий от вашего имени в этом приложении',
  'consent.redirect': 'Затем вы вернётесь на <origin>{address}</origin>.',
  'consent.deny': 'Отклонить',
  'consent.allow': 'Разрешить',
  'consent.signedInAs': 'Вы вошли как <email>{account}</email>.',
  'consent.useAnotherAccount': 'Войти в другой аккаунт',
  'consent.policy.intro':
    'Если позже вы предоставите ему доступ к кошельку с помощью PIN-кода, <app>{name}</app>:',
  'consent.policy.tokenPerDay':
    'сможет тратить не более {amount, number, ::.##################} {symbol} в день из вашего кошелька до {until, date, medium}',
  'consent.policy.tokenPerDayBaseUnits':
    'сможет тратить из вашего кошелька токен {token}: не более {amount, number} в базовых единицах в день до {until, date, medium}',
  'consent.policy.etherPerDay':
    'сможет отправлять не более {perDay, number, ::.##################} ETH в день из вашего кошелька до {until, date, medium}',
  'consent.policy.etherPerDayPerCall':
    'сможет отправлять не более {perDay, number, ::.##################} ETH в день (не более {perCall, number, ::.##################} ETH за раз) из вашего кошелька до {until, date, medium}',
  'consent.policy.calls': 'сможет вызывать из вашего кошелька {functions} до {until, date, medium}',
  'consent.policy.contractFunctions':
    '{count, plural, one {# функцию} few {# функции} many {# функций} other {# функции}} контракта {contract}',
  'consent.policy.withinPolicy':
    'сможет действовать из вашего кошелька в рамках своей политики до {until, date, medium}',
  'consent.policy.revocable':
    'Это можно отозвать в любой момент; доступ прекращается, когда вы отзываете доступ приложения.',
} satisfies Translation<typeof en>;
