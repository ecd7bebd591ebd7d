/**
 * Rows an UPDATE or DELETE touched. Races are settled by conditional writes (`UPDATE … WHERE state = …`)
 * whose affected-row count says who won; both SQLite and PostgreSQL report it the same way through Kysely.
 */
export function affected(
  result: { readonly numUpdatedRows?: bigint; readonly numDeletedRows?: bigint } | undefined,
): number {
  return Number(result?.numUpdatedRows ?? result?.numDeletedRows ?? 0n);
}
