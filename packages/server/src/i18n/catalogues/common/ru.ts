import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'common.language': 'Язык',
  'common.changeLanguage': 'Сменить',
} satisfies Translation<typeof en>;
