import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'common.language': '言語',
  'common.changeLanguage': '変更',
} satisfies Translation<typeof en>;
