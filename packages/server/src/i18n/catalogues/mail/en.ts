/** English: the source of the mail namespace's keys (docs/i18n.md). */
export default {} as const;
