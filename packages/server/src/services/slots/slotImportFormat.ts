/**
 * The input of `dauth slots import`: earlier-issued slots as a JSON array (or `{slots: [...]}`) or
 * as CSV with a header row. Columns / keys:
 *
 *   id              decimal string, 1–19 digits (required)
 *   client_id       the app (required)
 *   owner_uuid      the owner's user_uuid, or
 *   owner_email     the owner's e-mail (one of the two is required)
 *   token_nickname  optional; the owner's nickname by default
 *   tr_cnt          optional; 0 by default
 *   content_address optional; derived (C_SALT = id for the owner's EOA) when absent
 */
export interface SlotImportRecord {
  /** 1-based position in the input, for error reports. */
  line: number;
  id: string;
  clientId: string;
  ownerUuid?: number;
  ownerEmail?: string;
  tokenNickname?: string;
  trCnt?: number;
  contentAddress?: string;
}

export class SlotImportFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SlotImportFormatError';
  }
}

type Raw = Record<string, unknown>;

/** Parses the file's text; `format` is taken from the file name's extension by the CLI. */
export function parseSlotImport(text: string, format: 'json' | 'csv'): SlotImportRecord[] {
  const raws = format === 'json' ? fromJson(text) : fromCsv(text);
  return raws.map(({ line, raw }) => toRecord(raw, line));
}

function fromJson(text: string): { line: number; raw: Raw }[] {
  let parsed: unknown;
  try {
    // Slot ids must be strings in the file: a bare 19-digit number would already be rounded here.
    parsed = JSON.parse(text);
  } catch (err) {
    throw new SlotImportFormatError(`not valid JSON: ${(err as Error).message}`);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { slots?: unknown } | null)?.slots;
  if (!Array.isArray(list)) throw new SlotImportFormatError('expected an array of slots or {"slots": [...]}');
  return list.map((raw, i) => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      throw new SlotImportFormatError(`entry ${i + 1}: not an object`);
    }
    return { line: i + 1, raw: raw as Raw };
  });
}

/** RFC 4180 CSV: quoted fields, doubled quotes, CRLF or LF. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (quoted) throw new SlotImportFormatError('CSV ends inside a quoted field');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.some((f) => f.trim() !== ''));
}

function fromCsv(text: string): { line: number; raw: Raw }[] {
  const [header, ...rows] = parseCsv(text.replace(/^\uFEFF/, ''));
  if (!header) throw new SlotImportFormatError('the CSV is empty');
  const names = header.map((h) => h.trim().toLowerCase());
  if (!names.includes('id')) throw new SlotImportFormatError('the CSV header has no "id" column');
  return rows.map((cells, i) => {
    const raw: Raw = {};
    names.forEach((name, j) => {
      const cell = cells[j]?.trim();
      if (cell !== undefined && cell !== '') raw[name] = cell;
    });
    return { line: i + 2, raw };
  });
}

function toRecord(raw: Raw, line: number): SlotImportRecord {
  const fail = (message: string): never => {
    throw new SlotImportFormatError(`entry at line ${line}: ${message}`);
  };
  const text = (key: string): string | undefined => {
    const value = raw[key];
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') fail(`${key} must be a string`);
    return (value as string).trim();
  };
  const integer = (key: string): number | undefined => {
    const value = raw[key];
    if (value === undefined || value === null || value === '') return undefined;
    const n = typeof value === 'number' ? value : /^\d+$/.test(String(value)) ? Number(value) : NaN;
    if (!Number.isSafeInteger(n) || n < 0) fail(`${key} must be a non-negative integer`);
    return n;
  };
  if (typeof raw.id === 'number') fail('id must be a decimal string (a JSON number loses digits)');
  const id = text('id') ?? fail('id is required');
  const clientId = text('client_id') ?? fail('client_id is required');
  const ownerUuid = integer('owner_uuid');
  const ownerEmail = text('owner_email');
  if (ownerUuid === undefined && ownerEmail === undefined) fail('owner_uuid or owner_email is required');
  const record: SlotImportRecord = { line, id, clientId };
  if (ownerUuid !== undefined) record.ownerUuid = ownerUuid;
  if (ownerEmail !== undefined) record.ownerEmail = ownerEmail;
  const nickname = text('token_nickname');
  if (nickname !== undefined) record.tokenNickname = nickname;
  const trCnt = integer('tr_cnt');
  if (trCnt !== undefined) record.trCnt = trCnt;
  const contentAddress = text('content_address');
  if (contentAddress !== undefined) record.contentAddress = contentAddress;
  return record;
}
