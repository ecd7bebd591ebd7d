import fs from 'node:fs/promises';
import path from 'node:path';
import {
  parseSlotImport,
  type SlotImportRecord,
  SlotImportFormatError,
} from '../../services/slots/slotImportFormat.js';
import type { ImportSummary } from '../../services/slots/slotImportService.js';
import { type CliCommand, CommandFailure, optionalString, UsageError } from '../command.js';

/** Records per request to the server (its limit is 200: `routes/admin/slots/import.ts`). */
const BATCH = 100;

/**
 * `dauth slots import <slots.json|slots.csv>`: imports slots issued before this service through the
 * running server's `POST /v1/admin/slots/import`, so the server keeps its embedded chain to itself.
 * Each record keeps its id (a decimal string, written as a JSON string from then on), joins its
 * owner's slots of the app, and is recorded on chain (`buy_slot` to the owner's main wallet) unless
 * the dex has it already. Running the same file again changes nothing. The file is read and checked
 * here (a format error names its line and sends nothing); prints one JSON summary with one result
 * per record; a failed record does not stop the others. Format: `services/slots/slotImportFormat.ts`
 * and docs/slots.md.
 */
export const slotsImport: CliCommand = {
  path: ['slots', 'import'],
  summary:
    'Import earlier-issued slots from a JSON or CSV file through the running server (idempotent; records ownership on chain)',
  needs: 'server',
  usage: '<slots.json|slots.csv> [--format json|csv] [--server <url>]  (or --file <path>)',
  positionals: 1,
  options: {
    file: { type: 'string' },
    format: { type: 'string' },
  },
  async run(values, server) {
    const positional = Array.isArray(values.positionals)
      ? values.positionals.filter((p) => typeof p === 'string')
      : [];
    const file = optionalString(values, 'file') ?? positional[0];
    if (!file) throw new UsageError('--file is required');
    const format = optionalString(values, 'format') ?? path.extname(file).slice(1).toLowerCase();
    if (format !== 'json' && format !== 'csv') {
      throw new UsageError('the file must end in .json or .csv, or give --format json|csv');
    }
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
    }
    let records;
    try {
      records = parseSlotImport(text, format);
    } catch (err) {
      if (err instanceof SlotImportFormatError) throw new UsageError(`${file}: ${err.message}`);
      throw err;
    }
    const summary: ImportSummary = {
      success: true,
      imported: 0,
      updated: 0,
      unchanged: 0,
      failed: 0,
      results: [],
    };
    const adminKey = server.adminKey();
    for (let at = 0; at < records.length; at += BATCH) {
      const batch = records.slice(at, at + BATCH).map(toWire);
      const answer = (await server.request('POST', '/v1/admin/slots/import', { slots: batch }, adminKey)) as
        ImportSummary | undefined;
      if (!answer || !Array.isArray(answer.results)) {
        throw new CommandFailure('server_error', 'unexpected answer from POST /v1/admin/slots/import');
      }
      summary.success &&= answer.success;
      summary.imported += answer.imported;
      summary.updated += answer.updated;
      summary.unchanged += answer.unchanged;
      summary.failed += answer.failed;
      summary.results.push(...answer.results);
    }
    return summary;
  },
};

/** A parsed record as the admin route takes it (the file's field names, and its line). */
function toWire(record: SlotImportRecord): Record<string, unknown> {
  return {
    line: record.line,
    id: record.id,
    client_id: record.clientId,
    ...(record.ownerUuid !== undefined ? { owner_uuid: record.ownerUuid } : {}),
    ...(record.ownerEmail !== undefined ? { owner_email: record.ownerEmail } : {}),
    ...(record.tokenNickname !== undefined ? { token_nickname: record.tokenNickname } : {}),
    ...(record.trCnt !== undefined ? { tr_cnt: record.trCnt } : {}),
    ...(record.contentAddress !== undefined ? { content_address: record.contentAddress } : {}),
  };
}
