import { Type } from 'typebox';
import type { Services } from '../../../../composition/index.js';
import type { SlotImportRecord } from '../../../../services/slots/slotImportFormat.js';
import { invalidField } from '../../../../errors.js';
import { errorResponses } from '../../../schemas.js';
import type { App } from '../../../types.js';

/** Records per request: each may send a transaction, so a big file is sent in batches (the CLI does). */
export const MAX_IMPORT_RECORDS = 200;

const ImportRecord = Type.Object(
  {
    // Checked record by record by the service, so one bad record fails alone (not the whole batch).
    id: Type.String({
      minLength: 1,
      maxLength: 40,
      description: 'The slot id, a decimal string (1–19 digits)',
    }),
    client_id: Type.String({ minLength: 1, maxLength: 64 }),
    owner_uuid: Type.Optional(
      Type.Union(
        [
          Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
          Type.String({ pattern: '^[1-9][0-9]{0,15}$' }),
        ],
        {
          description:
            'The owner’s user_uuid: a JSON number, or the decimal string login returns as `uuid` (as the other routes take it)',
        },
      ),
    ),
    owner_email: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
    token_nickname: Type.Optional(Type.String({ maxLength: 200 })),
    tr_cnt: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
    content_address: Type.Optional(Type.String({ maxLength: 100 })),
    line: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Where the record was in the file, echoed in its result' }),
    ),
  },
  { additionalProperties: false },
);

const ImportResult = Type.Object({
  line: Type.Integer(),
  id: Type.String(),
  status: Type.Union([
    Type.Literal('imported'),
    Type.Literal('updated'),
    Type.Literal('unchanged'),
    Type.Literal('failed'),
  ]),
  error: Type.Optional(Type.String()),
  owner_uuid: Type.Optional(Type.Integer()),
  client_id: Type.Optional(Type.String()),
  meta_idx: Type.Optional(Type.Integer()),
  content_address: Type.Optional(Type.String()),
});

/**
 * `POST /v1/admin/slots/import`: what `dauth slots import` sends, so the import runs in the server
 * that owns the chain (docs/slots.md). Idempotent, one result per record; a failed record does not
 * stop the others.
 */
export async function adminSlotImportRoutes(app: App, services: Services): Promise<void> {
  app.post(
    '/v1/admin/slots/import',
    {
      schema: {
        tags: ['admin'],
        summary: `Import earlier-issued slots (idempotent; records ownership on chain); at most ${MAX_IMPORT_RECORDS} a request`,
        security: [{ admin: [] }],
        body: Type.Object({
          slots: Type.Array(ImportRecord, { minItems: 1, maxItems: MAX_IMPORT_RECORDS }),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean({ description: 'No record failed' }),
            imported: Type.Integer(),
            updated: Type.Integer(),
            unchanged: Type.Integer(),
            failed: Type.Integer(),
            results: Type.Array(ImportResult),
          }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      const records = request.body.slots.map((s, i): SlotImportRecord => ({
        line: s.line ?? i + 1,
        id: s.id,
        clientId: s.client_id,
        ...(s.owner_uuid !== undefined ? { ownerUuid: ownerUuidOf(s.owner_uuid, i) } : {}),
        ...(s.owner_email !== undefined ? { ownerEmail: s.owner_email } : {}),
        ...(s.token_nickname !== undefined ? { tokenNickname: s.token_nickname } : {}),
        ...(s.tr_cnt !== undefined ? { trCnt: s.tr_cnt } : {}),
        ...(s.content_address !== undefined ? { contentAddress: s.content_address } : {}),
      }));
      return services.slotImport.importAll(records);
    },
  );
}

/** A string owner_uuid as a number; one beyond 2^53 − 1 would lose digits (another user), so it is refused. */
function ownerUuidOf(value: number | string, index: number): number {
  const uuid = Number(value);
  if (!Number.isSafeInteger(uuid)) {
    throw invalidField(`slots[${index}].owner_uuid`, `slots[${index}].owner_uuid is not a user_uuid`);
  }
  return uuid;
}
