import type { Knex } from 'knex';
import { recordAudit } from '../audit/audit-log';
import type { Executor } from '../db/transaction';
import { NotFound } from '../errors';
import { enqueueMail } from '../mail/enqueue-mail';
import { welcomeMail } from '../mail/program-mail';
import { addReferralCode, generateCode } from './advocates';
import { normalizeCode, normalizeEmail } from './normalize';

/**
 * Advocates imported from a merchant's CSV (docs/merchants/merchant-accounts.md, "Importing advocates"). The
 * upload stores the checked rows (advocate_import_rows); a worker creates them in chunks, each
 * chunk's advocates, the deletion of its rows and the import's progress committed together, so a
 * crash loses nothing and repeats nothing: the next pass resumes after the last committed chunk
 * (resumable, not all-or-nothing).
 */
export interface ImportRow {
  line: number;
  email: string;
  first_name: string;
  last_name?: string | null;
  code?: string;
}

export interface ImportRefusal {
  line: number;
  field: string;
  reason: string;
  /** The line's email as written (what the merchant looks for), when it could be read. */
  email?: string;
  /** The refused value, or as much of an unreadable line as the parser read (at most 200 characters). */
  value?: string;
}

export const IMPORT_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

export interface ImportView {
  id: number;
  status: ImportStatus;
  file_name: string | null;
  total_rows: number;
  done_rows: number;
  created: number;
  refused: ImportRefusal[];
  send_welcome: boolean;
  created_by: string;
  created_at: string;
  finished_at: string | null;
}

interface ImportRecord {
  brand_id: string;
  import_id: string;
  status: ImportStatus;
  total_rows: number;
  done_rows: number;
  last_line: number;
  created_count: number;
  refused: ImportRefusal[] | string;
  send_welcome: boolean;
  file_name: string | null;
  created_by: string;
  created_at: Date;
  finished_at: Date | null;
}

const parsed = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

const toView = (row: ImportRecord): ImportView => ({
  id: Number(row.import_id),
  status: row.status,
  file_name: row.file_name,
  total_rows: row.total_rows,
  done_rows: row.done_rows,
  created: row.created_count,
  // In file order: the upload's refusals and the worker's (emails taken) come apart.
  refused: parsed(row.refused).sort((a, b) => a.line - b.line),
  send_welcome: row.send_welcome,
  created_by: row.created_by,
  created_at: new Date(row.created_at).toISOString(),
  finished_at: row.finished_at ? new Date(row.finished_at).toISOString() : null,
});

/** Rows written per statement when an upload is stored (one JSON parameter each). */
const STORE_BATCH = 10_000;

/** Stores an upload's checked rows (and the lines refused already) as a queued import; the worker does the rest. */
export async function createImport(
  db: Executor,
  brandId: string,
  input: { rows: ImportRow[]; refused: ImportRefusal[]; fileName: string | null; sendWelcome: boolean; actor: string },
): Promise<ImportView> {
  const empty = input.rows.length === 0;
  const [row] = (await db('advocate_imports')
    .insert({
      brand_id: brandId,
      total_rows: input.rows.length,
      refused: JSON.stringify(input.refused),
      send_welcome: input.sendWelcome,
      file_name: input.fileName,
      created_by: input.actor,
      status: empty ? 'done' : 'queued',
      finished_at: empty ? db.fn.now() : null,
    })
    .returning('*')) as ImportRecord[];
  const view = toView(row!);
  for (let start = 0; start < input.rows.length; start += STORE_BATCH) {
    const batch = input.rows.slice(start, start + STORE_BATCH).map((r) => ({ line: r.line, email: r.email, first_name: r.first_name, last_name: r.last_name ?? null, code: r.code ?? null }));
    await db.raw(
      `INSERT INTO advocate_import_rows (brand_id, import_id, line, email, first_name, last_name, code)
       SELECT ?, ?, r.line, r.email, r.first_name, r.last_name, r.code
         FROM json_to_recordset(?::json) AS r(line integer, email text, first_name text, last_name text, code text)`,
      [brandId, view.id, JSON.stringify(batch)],
    );
  }
  await recordAudit(db, { brandId, actor: input.actor, action: 'advocate.import', subject: `import:${view.id}`, after: { file: input.fileName, rows: input.rows.length, refused_at_upload: input.refused.length, send_welcome: input.sendWelcome } });
  return view;
}

export async function getImport(db: Executor, brandId: string, importId: number): Promise<ImportView> {
  const row: ImportRecord | undefined = await db('advocate_imports').where({ brand_id: brandId, import_id: importId }).first();
  if (!row) throw new NotFound(`import ${importId} not found`);
  return toView(row);
}

export async function listImports(db: Executor, brandId: string, limit: number): Promise<ImportView[]> {
  const rows: ImportRecord[] = await db('advocate_imports').where({ brand_id: brandId }).orderBy('import_id', 'desc').limit(limit);
  return rows.map(toView);
}

/** One chunk's rows: the ones refused (their email or code already taken), and the advocates created. */
export async function createChunk(trx: Knex.Transaction, brandId: string, rows: ImportRow[], sendWelcome: boolean): Promise<{ created: number; refused: ImportRefusal[] }> {
  const refused: ImportRefusal[] = [];
  const emails = rows.map((row) => normalizeEmail(row.email));
  const codes = rows.flatMap((row) => (row.code ? [normalizeCode(row.code)] : []));
  const takenEmails = new Map<string, number>(
    ((await trx('advocates').where({ brand_id: brandId }).whereIn('email_normalized', emails).select('email_normalized', 'advocate_id')) as Array<{ email_normalized: string; advocate_id: string }>).map(
      (row) => [row.email_normalized, Number(row.advocate_id)],
    ),
  );
  const takenCodes = new Set<string>(codes.length ? await trx('referral_codes').where({ brand_id: brandId }).whereIn('code_normalized', codes).pluck('code_normalized') : []);
  const fresh: ImportRow[] = [];
  const seenEmails = new Set<string>();
  for (const row of rows) {
    const email = normalizeEmail(row.email);
    const code = row.code ? normalizeCode(row.code) : null;
    if (takenEmails.has(email)) refused.push({ line: row.line, field: 'email', reason: `already an advocate (advocate ${takenEmails.get(email)})`, email: row.email, value: row.email });
    else if (seenEmails.has(email)) refused.push({ line: row.line, field: 'email', reason: 'appears on an earlier line of this file', email: row.email, value: row.email });
    else if (code && takenCodes.has(code)) refused.push({ line: row.line, field: 'code', reason: `code ${row.code} is already in use`, email: row.email, value: row.code });
    else {
      fresh.push(row);
      seenEmails.add(email);
      if (code) takenCodes.add(code);
    }
  }
  if (fresh.length === 0) return { created: 0, refused };
  const inserted = (await trx('advocates')
    .insert(fresh.map((row) => ({ brand_id: brandId, email: row.email.trim(), email_normalized: normalizeEmail(row.email), first_name: row.first_name, last_name: row.last_name ?? null })))
    .returning(['advocate_id', 'email_normalized'])) as Array<{ advocate_id: string; email_normalized: string }>;
  const idOf = new Map(inserted.map((row) => [row.email_normalized, Number(row.advocate_id)]));
  const wanted = fresh.map((row) => {
    const code = row.code ?? generateCode(row.first_name);
    return { row, advocateId: idOf.get(normalizeEmail(row.email))!, code };
  });
  const written = new Set<string>(
    await trx('referral_codes')
      .insert(wanted.map(({ advocateId, code }) => ({ brand_id: brandId, code_normalized: normalizeCode(code), code, advocate_id: advocateId, kind: 'referral' })))
      .onConflict(['brand_id', 'code_normalized'])
      .ignore()
      .returning('code_normalized')
      .then((rows: Array<{ code_normalized: string }>) => rows.map((row) => row.code_normalized)),
  );
  // A generated code that collided (rare) is generated again, one by one.
  for (const { row, advocateId, code } of wanted) {
    if (!written.has(normalizeCode(code))) await addReferralCode(trx, brandId, advocateId, generateCode(row.first_name), true);
  }
  if (sendWelcome) await enqueueMail(trx, wanted.map(({ advocateId }) => welcomeMail(brandId, advocateId)));
  return { created: wanted.length, refused };
}

/**
 * One chunk of the oldest unfinished import (of `brandId`, when given): its advocates and the
 * import's progress in one transaction. An import another process is working is skipped (SKIP
 * LOCKED). Returns how many rows it worked (0: nothing to do).
 */
export async function processImportChunk(db: Knex, options: { chunkSize: number; brandId?: string }): Promise<number> {
  return db.transaction(async (trx) => {
    const record: ImportRecord | undefined = await trx('advocate_imports')
      .whereIn('status', ['queued', 'running'])
      .modify((query) => {
        if (options.brandId) query.where('brand_id', options.brandId);
      })
      .orderBy('created_at')
      .forUpdate()
      .skipLocked()
      .first();
    if (!record) return 0;
    const key = { brand_id: record.brand_id, import_id: record.import_id };
    const stored: Array<{ line: number; email: string; first_name: string; last_name: string | null; code: string | null }> = await trx('advocate_import_rows')
      .where(key)
      .andWhere('line', '>', record.last_line)
      .orderBy('line')
      .limit(options.chunkSize)
      .select('line', 'email', 'first_name', 'last_name', 'code');
    const rows: ImportRow[] = stored.map((r) => ({ line: r.line, email: r.email, first_name: r.first_name, last_name: r.last_name, ...(r.code ? { code: r.code } : {}) }));
    const chunk = await createChunk(trx, record.brand_id, rows, record.send_welcome);
    const lastLine = rows.length > 0 ? rows[rows.length - 1]!.line : record.last_line;
    if (rows.length > 0) await trx('advocate_import_rows').where(key).andWhere('line', '<=', lastLine).delete();
    const doneRows = record.done_rows + rows.length;
    const finished = rows.length < options.chunkSize || doneRows >= record.total_rows;
    await trx('advocate_imports')
      .where(key)
      .update({
        status: finished ? 'done' : 'running',
        done_rows: doneRows,
        last_line: lastLine,
        created_count: record.created_count + chunk.created,
        refused: JSON.stringify([...parsed(record.refused), ...chunk.refused]),
        finished_at: finished ? trx.fn.now() : null,
      });
    if (finished) {
      await recordAudit(trx, {
        brandId: record.brand_id,
        actor: record.created_by,
        action: 'advocate.import_done',
        subject: `import:${record.import_id}`,
        after: { created: record.created_count + chunk.created, refused: parsed(record.refused).length + chunk.refused.length },
      });
    }
    return Math.max(rows.length, 1);
  });
}
