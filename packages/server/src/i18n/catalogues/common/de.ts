import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'common.language': 'Sprache',
  'common.changeLanguage': 'Wechseln',
} satisfies Translation<typeof en>;
