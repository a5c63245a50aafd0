import type pg from 'pg'
import type { Logger } from '../logger.js'

export type NotificationListener = {
  /** Listens on the channel unless already listening; after a lost connection, listens again. */
  ensure(): Promise<void>
  close(): Promise<void>
}

/** One pooled connection that LISTENs on a channel; losing it only costs latency, as callers also poll. */
export function createNotificationListener(
  pool: pg.Pool,
  channel: string,
  onNotification: (payload: string | undefined) => void,
  log: Logger,
): NotificationListener {
  let current: { client: pg.PoolClient; detach(): void } | undefined
  let connecting: Promise<void> | undefined

  const connect = async () => {
    const client = await pool.connect()
    const onMessage = (message: pg.Notification) => onNotification(message.payload)
    const onError = (err: Error) => {
      if (current?.client !== client) return
      log.warn({ err, channel }, 'lost the LISTEN connection; polling until it is back')
      current = undefined
      detach()
      client.release(err)
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
    current = { client, detach }
  }

  return {
    async ensure() {
      if (current) return
      // Several loops may ask at once: one connection, not one each (the others would never be released).
      connecting ??= connect().finally(() => {
        connecting = undefined
      })
      await connecting
    },
    async close() {
      const listening = current
      current = undefined
      if (!listening) return
      await listening.client.query(`UNLISTEN ${channel}`).catch(() => {})
      listening.detach()
      listening.client.release()
    },
  }
}
