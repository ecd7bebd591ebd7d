/** English: the source of the consent namespace's keys (docs/i18n.md). */
export default {} as const;
