import './heap.js'
import { type Config, ConfigError, loadConfig, loadDataDirConfig } from './config.js'
import { BackupError } from './db/backup-format.js'
import { DataDirLockedError } from './db/data-dir-lock.js'
import { createLogger } from './logger.js'
import type { ServerCommand } from './run-command.js'
import { takeShutdownSignals } from './shutdown-signals.js'
import { markStartPhase } from './start-phases.js'

const usage = `Usage: mailroom <command>

Commands:
  start           run the API and the background worker in one process (default)
  api             run the HTTP API only
  worker          run background jobs only
  migrate         apply database migrations and exit
  backup <file>   write a consistent copy of the embedded database and DATA_DIR to <file>, while it runs
  restore <file>  bring such a copy back into an empty DATA_DIR
  mcp             the MCP server over stdio for AI agents, acting on the Mailroom at MAILROOM_URL with
                  MAILROOM_SECRET_KEY (--read-only: only the tools that change nothing)`

/**
 * The embedded PostgreSQL starts first, then the server's modules load (over a second on a busy machine, all on
 * the event loop) while PostgreSQL comes up in its own process: a start waits for the slower of the two, not both.
 */
async function run(command: ServerCommand, config: Config): Promise<void> {
  const log = createLogger(config)
  takeShutdownSignals()
  // Loaded only when used: a server-mode process never touches the embedded binaries.
  const embedded = config.databaseUrl
    ? undefined
    : await (await import('./db/embedded.js')).launchEmbeddedPostgres(config.dataDir, (message) => log.info(message))
  markStartPhase('postgres launched')
  try {
    const { runCommand } = await import('./run-command.js')
    await runCommand(command, config, log, embedded?.ready)
  } catch (err) {
    // Stops the database whichever step failed (createAppContext stops it too; a second stop changes nothing).
    await embedded?.ready.then((database) => database.stop()).catch(() => {})
    throw err
  }
}

const serverCommands: readonly string[] = ['start', 'api', 'worker', 'migrate'] satisfies ServerCommand[]
const command = process.argv[2] ?? 'start'
const file = process.argv[3]
const backupCommand = (command === 'backup' || command === 'restore') && file ? command : undefined
if (!serverCommands.includes(command) && !backupCommand) {
  console.error(usage)
  process.exit(command === '--help' || command === 'help' ? 0 : 2)
}

try {
  if (backupCommand && file) {
    // Loaded only when used, like the embedded database; and without loadConfig, which would put a new secret
    // into the DATA_DIR a restore must find empty.
    const { runBackupCommand } = await import('./db/backup-command.js')
    await runBackupCommand(backupCommand, file, loadDataDirConfig(process.env))
    process.exit(0)
  }
  await run(command as ServerCommand, loadConfig(process.env))
} catch (err) {
  if (err instanceof ConfigError || err instanceof DataDirLockedError || err instanceof BackupError) {
    console.error(err.message)
    process.exit(1)
  }
  console.error(err)
  process.exit(1)
}
