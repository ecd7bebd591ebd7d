/** English: the source of the common namespace's keys (docs/i18n.md). */
export default {
  'common.language': 'Language',
  'common.changeLanguage': 'Change',
} as const;
