/** English: the source of the device namespace's keys (docs/i18n.md). */
export default {} as const;
