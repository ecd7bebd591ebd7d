/** English: the source of the errors namespace's keys (docs/i18n.md). */
export default {} as const;
