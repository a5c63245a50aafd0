import type pg from 'pg'
import type { Logger } from '../logger.js'

export type NotificationListener = {
  /** Listens on the channel unless already listening (connecting now if need be). */
  ensure(): Promise<void>
  close(): Promise<void>
}

/** The pause before listening again after a lost connection or a failed attempt, doubled up to the most. */
const retryFirstMs = 200
const retryMostMs = 2_000

/**
 * One pooled connection that LISTENs on a channel; losing it only costs latency, as callers also poll. After a
 * lost connection (a restart of PostgreSQL, a terminated backend) it listens again by itself, retrying with a
 * growing pause, then calls `onNotification(undefined)` once: a wake sent while nobody listened is lost, so its
 * waiters look for work at once rather than at their next poll.
 */
export function createNotificationListener(
  pool: pg.Pool,
  channel: string,
  onNotification: (payload: string | undefined) => void,
  log: Logger,
): NotificationListener {
  let current: { client: pg.PoolClient; detach(): void } | undefined
  let connecting: Promise<void> | undefined
  let closed = false
  /** Since the connection was lost (or the first attempt failed), until listening again. */
  let lost = false
  let retryMs = retryFirstMs
  let retryTimer: NodeJS.Timeout | undefined

  const retryLater = () => {
    if (closed || retryTimer) return
    retryTimer = setTimeout(() => {
      retryTimer = undefined
      ensure().catch(() => {})
    }, retryMs)
    retryMs = Math.min(retryMs * 2, retryMostMs)
  }

  const connect = async () => {
    const client = await pool.connect()
    const onMessage = (message: pg.Notification) => onNotification(message.payload)
    const onError = (err: Error) => {
      if (current?.client !== client) return
      log.warn({ err, channel }, 'lost the LISTEN connection; polling until it is back')
      current = undefined
      lost = true
      detach()
      client.release(err)
      retryLater()
    }
    // Once released, the client is the pool's: its later errors (a server shutting down) are not ours.
    const detach = () => {
      client.off('notification', onMessage)
      client.off('error', onError)
    }
    client.on('notification', onMessage)
    client.on('error', onError)
    try {
      await client.query(`LISTEN ${channel}`)
    } catch (err) {
      detach()
      client.release(err instanceof Error ? err : true)
      throw err
    }
    if (closed) {
      detach()
      client.release()
      return
    }
    current = { client, detach }
    retryMs = retryFirstMs
    if (lost) {
      lost = false
      log.info({ channel }, 'listening again')
      onNotification(undefined)
    }
  }

  const ensure = async () => {
    if (current || closed) return
    // Several loops may ask at once: one connection, not one each (the others would never be released).
    connecting ??= connect()
      .catch((err: unknown) => {
        lost = true
        retryLater()
        throw err
      })
      .finally(() => {
        connecting = undefined
      })
    await connecting
  }

  return {
    ensure,
    async close() {
      closed = true
      clearTimeout(retryTimer)
      await connecting?.catch(() => {})
      const listening = current
      current = undefined
      if (!listening) return
      await listening.client.query(`UNLISTEN ${channel}`).catch(() => {})
      listening.detach()
      listening.client.release()
    },
  }
}
