import { and, eq, getTableColumns } from 'drizzle-orm'
import type { AppContext } from '../../context.js'
import type { Executor } from '../../db/client.js'
import { contactImports } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import { enqueue } from '../../jobs/define.js'
import { CsvFormatError, readCsvHeader } from './csv.js'
import { importContactsJob } from './jobs.js'
import type { ImportView } from './schemas.js'

export const importMaxBytes = 5 * 1024 * 1024

function invalidFile(message: string): AppError {
  return new AppError('VALIDATION_ERROR', message, { errors: [{ field: 'file', code: 'invalid_csv', message }] })
}

/** Stores the file and queues its import in one transaction; the header is checked first so a bad file is a 422. */
export async function startContactImport(
  ctx: AppContext,
  projectId: string,
  file: Buffer,
): Promise<{ jobId: string; state: 'queued' }> {
  try {
    await readCsvHeader(file)
  } catch (err) {
    if (err instanceof CsvFormatError) throw invalidFile(err.message)
    throw invalidFile('The file is not a readable CSV')
  }
  return ctx.db.transaction(async (tx) => {
    const [created] = await tx
      .insert(contactImports)
      .values({ projectId, file, fileBytes: file.length })
      .returning({ id: contactImports.id })
    if (!created) throw new Error('import insert returned nothing')
    await enqueue(ctx, importContactsJob, { importId: created.id }, { tx })
    return { jobId: created.id, state: 'queued' as const }
  })
}

export async function getContactImport(db: Executor, projectId: string, importId: string): Promise<ImportView> {
  // Never `select()` everything: every poll would read the stored file (5 MB, 10 MB as hex on the wire).
  const { file: _file, ...columns } = getTableColumns(contactImports)
  const [job] = await db
    .select(columns)
    .from(contactImports)
    .where(and(eq(contactImports.id, importId), eq(contactImports.projectId, projectId)))
  if (!job) throw notFound('Import job')
  return {
    jobId: job.id,
    state: job.state,
    totalRows: job.totalRows,
    processedRows: job.processedRows,
    progress:
      job.totalRows === 0
        ? job.state === 'completed'
          ? 100
          : 0
        : Math.floor((job.processedRows / job.totalRows) * 100),
    created: job.created,
    updated: job.updated,
    failed: job.failed,
    errors: job.errors,
    error: job.error,
    createdAt: job.createdAt,
    finishedAt: job.finishedAt,
  }
}
