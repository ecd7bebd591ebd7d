import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'common.language': '언어',
  'common.changeLanguage': '변경',
} satisfies Translation<typeof en>;
