import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'common.language': 'Langue',
  'common.changeLanguage': 'Changer',
} satisfies Translation<typeof en>;
