import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'common.language': '语言',
  'common.changeLanguage': '切换',
} satisfies Translation<typeof en>;
