import type { Translation } from '../types.js';
import type en from './en.js';

export default {
  'common.language': 'Idioma',
  'common.changeLanguage': 'Alterar',
} satisfies Translation<typeof en>;
