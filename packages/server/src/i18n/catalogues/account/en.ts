/** English: the source of the account namespace's keys (docs/i18n.md). */
export default {} as const;
