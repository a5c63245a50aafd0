import { type FSWatcher, watch } from 'node:fs'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { createSecureContext } from 'node:tls'
import type { Logger } from '../../logger.js'

type CertificatePair = { key: Buffer; cert: Buffer }

/** The relay's key and certificate: the pair to serve now, and word of each new one. */
export type CertificateSource = {
  current(): CertificatePair
  onChange(listener: (pair: CertificatePair) => void): void
  close(): void
}

export type CertificateFiles = { keyFile: string; certFile: string }

type WatchOptions = {
  log: Logger
  /** Reload when a file in the files' folders changes (default true); SIGHUP and the periodic check stay on. */
  watch?: boolean
  /** A periodic re-read, for filesystems whose changes fs.watch misses (network mounts); default a minute. */
  pollIntervalMs?: number
}

// Editors and certbot write in steps (a temporary file, then renames): read once the burst is over.
const settleMs = 50

/**
 * PEM files named by the configuration, re-read when their folders change (so a file replaced by a rename is seen,
 * as are Kubernetes' symlink swaps), on SIGHUP, and once a minute. A pair that does not load (a half-written file,
 * a key that does not match the certificate) is logged and the previous one kept.
 */
export async function watchCertificateFiles(
  files: CertificateFiles,
  options: WatchOptions,
): Promise<CertificateSource> {
  const { log } = options
  let current = await readPair(files)
  validate(current)
  const listeners: ((pair: CertificatePair) => void)[] = []
  let settleTimer: NodeJS.Timeout | undefined
  let reading: Promise<void> = Promise.resolve()

  const reload = (reason: string) => {
    reading = reading.then(async () => {
      try {
        const next = await readPair(files)
        if (next.key.equals(current.key) && next.cert.equals(current.cert)) return
        validate(next)
        current = next
        for (const listener of listeners) listener(next)
        log.info({ ...files, reason }, 'SMTP relay: reloaded the TLS certificate')
      } catch (err) {
        log.warn({ err, ...files, reason }, 'SMTP relay: kept the previous TLS certificate, the files do not load')
      }
    })
  }
  const reloadSoon = () => {
    clearTimeout(settleTimer)
    settleTimer = setTimeout(() => reload('the files changed'), settleMs)
  }
  const onHangup = () => reload('SIGHUP')
  process.on('SIGHUP', onHangup)
  const poll = setInterval(() => reload('periodic check'), options.pollIntervalMs ?? 60_000)
  poll.unref()
  const watchers = options.watch === false ? [] : watchFolders(files, reloadSoon, log)

  return {
    current: () => current,
    onChange: (listener) => listeners.push(listener),
    close() {
      process.off('SIGHUP', onHangup)
      clearInterval(poll)
      clearTimeout(settleTimer)
      for (const watcher of watchers) watcher.close()
    },
  }
}

async function readPair(files: CertificateFiles): Promise<CertificatePair> {
  const [key, cert] = await Promise.all([readFile(files.keyFile), readFile(files.certFile)])
  return { key, cert }
}

/** Throws when the pair would not make a TLS context (bad PEM, key and certificate that do not match). */
function validate(pair: CertificatePair): void {
  createSecureContext({ key: pair.key, cert: pair.cert })
}

function watchFolders(files: CertificateFiles, onChange: () => void, log: Logger): FSWatcher[] {
  const folders = new Set([path.dirname(files.keyFile), path.dirname(files.certFile)])
  return [...folders].map((folder) => {
    const watcher = watch(folder, { persistent: false }, onChange)
    // A removed folder ends the watch; SIGHUP and the periodic check still reload.
    watcher.on('error', (err) => {
      log.warn({ err, folder }, 'SMTP relay: stopped watching the certificate folder')
      watcher.close()
    })
    return watcher
  })
}
