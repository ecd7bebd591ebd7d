import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'common.language': 'اللغة',
  'common.changeLanguage': 'تغيير',
} satisfies Translation<typeof en>;
