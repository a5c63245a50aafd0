import type { DataDirConfig } from '../config.js'
import { createBackup } from './backup.js'
import { restoreBackup } from './restore.js'

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

/** `mailroom backup <file>` and `mailroom restore <file>`: one line of outcome for the operator. */
export async function runBackupCommand(command: 'backup' | 'restore', file: string, config: DataDirConfig) {
  if (command === 'backup') {
    const summary = await createBackup(config, file, (message) => console.error(message))
    console.log(
      `backup written to ${summary.file} (${summary.files} files, ${megabytes(summary.bytes)}, ` +
        `WAL ${summary.startLsn} to ${summary.stopLsn})`,
    )
    return
  }
  const summary = await restoreBackup(config, file)
  console.log(
    `restored ${summary.files} files (PostgreSQL ${summary.postgresVersion}) into ${summary.dataDir}; ` +
      '`mailroom start` with this DATA_DIR brings the database up to the end of the backup',
  )
}
