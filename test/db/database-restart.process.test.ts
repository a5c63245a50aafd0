import { afterAll, describe, expect, it, vi } from 'vitest'
import { clusterDirOf, findFreePort, readPostmasterPid, stopPostmaster } from '../../src/db/embedded.js'
import { cliSandbox } from '../helpers/cli-process.js'
import { terminateEveryBackend } from '../helpers/database.js'
import { startDnsServer } from '../helpers/dns-server.js'
import { senderEnv, setUpSender } from '../helpers/http-sender.js'
import { restartableCluster } from '../helpers/postmaster.js'
import { expectEveryAcceptedSendDeliveredOnce, startSendLoad } from '../helpers/send-load.js'
import { startSmtpSink } from '../helpers/smtp-sink.js'
import { startStoppablePostgres } from '../helpers/stoppable-postgres.js'

const { start, dataDir: newDataDir } = cliSandbox()

/** What the issue asks: everything works again within 10 s of the database's return, without a restart. */
const recoveryBoundMs = 10_000
const restarts = 5
/**
 * A claim whose answer a lost connection took is sent again once its lease runs out: 15 s rather than 30 keeps the
 * test short. Not shorter: a lease survives an outage of two thirds of it (its renewals fail meanwhile), and one
 * that ran out in a longer outage would have its email sent twice.
 */
const outboxLeaseSeconds = '15'
/**
 * Every accepted email reaches the receiving server within this of the last return: a lost claim after its lease, an
 * email whose preparation the outage broke after a second, none after a retry's backoff (30 s).
 */
const deliveryBoundMs = 20_000
const ready = 'Mailroom listening'
/** `/health`'s answer, or the socket error of a server that is gone. */
async function health(base: string): Promise<{ status: number; body: unknown } | { socketError: string }> {
  try {
    const response = await fetch(`${base}/health`)
    return { status: response.status, body: await response.json() }
  } catch (err) {
    return { socketError: String((err as Error).cause ?? err) }
  }
}

describe('a database restart under send load', () => {
  const cleanups: (() => Promise<void>)[] = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  it('embedded PostgreSQL stopped and started five times: the server lives, answers 503 meanwhile, and sends every accepted email once', async () => {
    const sink = await startSmtpSink()
    const dns = await startDnsServer()
    const dataDir = newDataDir('mailroom-db-restart-')
    const clusterDir = clusterDirOf(dataDir)
    cleanups.push(
      () => sink.close(),
      () => dns.close(),
      // A failed test must not leave behind the postmaster it started by hand.
      () => stopPostmaster(clusterDir),
    )
    const port = String(await findFreePort())
    const env = { ...senderEnv(sink, dns, port), DATA_DIR: dataDir, OUTBOX_LEASE_SECONDS: outboxLeaseSeconds }
    const base = `http://127.0.0.1:${port}`
    const server = start('start', env)
    await server.waitForOutput(ready, 60_000)
    const secretKey = await setUpSender(base, dns, 'restart.example.test')
    const cluster = restartableCluster(clusterDir)

    const load = startSendLoad(base, secretKey, 'codes@restart.example.test', 4)
    const recoveries: number[] = []
    for (let restart = 0; restart < restarts; restart++) {
      await load.waitForAccepted(Date.now(), 3, 30_000)
      await cluster.stop()
      const stoppedAt = Date.now()
      expect(await health(base)).toEqual({ status: 503, body: { status: 'unavailable', database: 'down' } })
      // Sends keep coming while the database is away.
      await load.waitForAnswers(stoppedAt, 8)
      await cluster.start()
      const backAt = Date.now()
      await vi.waitFor(async () => expect(await health(base)).toMatchObject({ status: 200 }), {
        timeout: recoveryBoundMs,
        interval: 50,
      })
      await load.waitForAccepted(backAt, 1, recoveryBoundMs)
      recoveries.push(Date.now() - backAt)
      expect(server.child.exitCode).toBeNull()
    }
    await load.stop()

    const { accepted, refused } = await expectEveryAcceptedSendDeliveredOnce(load, sink, deliveryBoundMs)
    expect(refused).toBeGreaterThan(0)
    expect(server.output()).not.toMatch(/Unhandled|uncaught/i)
    // And it still stops cleanly, its PostgreSQL (the one started by hand) with it.
    expect(await server.stop('SIGTERM')).toBe(0)
    expect(readPostmasterPid(clusterDir)).toBeUndefined()
    console.info(
      `${restarts} restarts: ${accepted} sends accepted, ${refused} refused with 503; sends accepted again ${recoveries.join(', ')} ms after each return`,
    )
  }, 120_000)

  it('an api process and a worker process live through every backend terminated and PostgreSQL restarted, and mail flows again', async () => {
    const sink = await startSmtpSink()
    const dns = await startDnsServer()
    // A PostgreSQL of this test's own, to be stopped: the run's shared one never is.
    const postgres = await startStoppablePostgres()
    cleanups.push(
      () => sink.close(),
      () => dns.close(),
      () => postgres.close(),
    )
    const port = String(await findFreePort())
    const env = {
      ...senderEnv(sink, dns, port),
      DATABASE_URL: postgres.url,
      OUTBOX_LEASE_SECONDS: outboxLeaseSeconds,
      // One deployment: the SECRET kept there (which seals DKIM keys) is the same for both processes.
      DATA_DIR: newDataDir('mailroom-db-restart-roles-'),
    }
    const base = `http://127.0.0.1:${port}`
    const api = start('api', env)
    const worker = start('worker', env)
    await Promise.all([api.waitForOutput(ready, 60_000), worker.waitForOutput('worker started', 60_000)])
    const secretKey = await setUpSender(base, dns, 'scaled.example.test')

    const load = startSendLoad(base, secretKey, 'codes@scaled.example.test', 4)
    for (const cut of ['terminate', 'terminate', 'restart', 'restart'] as const) {
      await load.waitForAccepted(Date.now(), 3, 30_000)
      if (cut === 'terminate') {
        expect(await terminateEveryBackend(postgres.url)).toBeGreaterThan(0)
      } else {
        await postgres.stop()
        await load.waitForAnswers(Date.now(), 8)
        await postgres.start()
      }
      await load.waitForAccepted(Date.now(), 1, recoveryBoundMs)
    }
    await load.stop()

    const { accepted, refused } = await expectEveryAcceptedSendDeliveredOnce(load, sink, deliveryBoundMs)
    expect(api.child.exitCode).toBeNull()
    expect(worker.child.exitCode).toBeNull()
    expect(await api.stop('SIGTERM')).toBe(0)
    expect(await worker.stop('SIGTERM')).toBe(0)
    console.info(`api and worker: ${accepted} sends accepted and delivered, ${refused} refused with 503`)
  }, 120_000)
})
