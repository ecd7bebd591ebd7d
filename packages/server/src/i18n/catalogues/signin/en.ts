/** English: the source of the signin namespace's keys (docs/i18n.md). */
export default {} as const;
