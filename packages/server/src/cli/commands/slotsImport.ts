import fs from 'node:fs/promises';
import path from 'node:path';
import { checksumAddress } from '../../chain/address.js';
import { parseSlotImport, SlotImportFormatError } from '../../services/slots/slotImportFormat.js';
import { type CliCommand, optionalString, UsageError } from '../command.js';

/**
 * `dauth slots import --file <slots.json|slots.csv>`: imports slots issued before this service.
 * Each record keeps its id (a decimal string, written as a JSON string from then on), joins its
 * owner's slots of the app, and is recorded on chain (`buy_slot` to the owner's main wallet) unless
 * the dex has it already. Running the same file again changes nothing. Prints a JSON summary with
 * one result per record; a failed record does not stop the others. Format: see
 * `services/slots/slotImportFormat.ts` and docs/slots.md.
 */
export const slotsImport: CliCommand = {
  path: ['slots', 'import'],
  summary:
    'Import earlier-issued slots from a JSON or CSV file (idempotent; records ownership on chain). Needs the chain: run it while the server of this DATA_DIR is stopped (or share CHAIN_RPC_URL)',
  needs: 'chain',
  usage: '<slots.json|slots.csv> [--format json|csv]  (or --file <path>)',
  positionals: 1,
  options: {
    file: { type: 'string' },
    format: { type: 'string' },
  },
  async run(values, services) {
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
    for (const record of records) {
      if (record.contentAddress === undefined) continue;
      try {
        record.contentAddress = checksumAddress(record.contentAddress);
      } catch {
        // Left as given: the import reports this record as failed (not a 20-byte hex address).
        record.contentAddress = `invalid:${record.contentAddress}`;
      }
    }
    return services.slotImport.importAll(records);
  },
};
