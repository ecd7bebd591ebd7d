import type { NamespaceCatalogue } from '../types.js';
import ar from './ar.js';
import de from './de.js';
import en from './en.js';
import es from './es.js';
import fr from './fr.js';
import ja from './ja.js';
import ko from './ko.js';
import ptBR from './pt-BR.js';
import ru from './ru.js';
import zhHans from './zh-Hans.js';

export default {
  en,
  es,
  'pt-BR': ptBR,
  fr,
  de,
  ja,
  ko,
  'zh-Hans': zhHans,
  ru,
  ar,
} satisfies NamespaceCatalogue<typeof en>;
