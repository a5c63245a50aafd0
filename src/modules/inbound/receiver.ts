import { readFile } from 'node:fs/promises'
import type { AppContext } from '../../context.js'
import { createResolver } from '../../mail/dns.js'
import type { InboundServer } from '../../mail/inbound/server.js'
import { acceptsInboundRecipient, receiveInboundMessage } from './service.js'

/**
 * The built-in SMTP receiver, when INBOUND_SMTP_PORT is set (worker-role processes). It closes with the
 * context, before the database does, so no message is answered 250 without having been stored.
 */
export async function startInboundReceiver(ctx: AppContext): Promise<InboundServer | undefined> {
  const port = ctx.config.inboundSmtpPort
  if (port === undefined) return undefined
  const tls = ctx.config.inboundTls
  // Loaded only when receiving is on: the SPF/DKIM/DMARC checks (mailauth) cost ~20 MB of memory.
  const { startInboundServer } = await import('../../mail/inbound/server.js')
  const server = await startInboundServer({
    ...(tls ? { tls: { key: await readFile(tls.keyFile), cert: await readFile(tls.certFile) } } : {}),
    host: ctx.config.inboundSmtpHost,
    port,
    maxMessageBytes: ctx.config.inboundMaxMessageBytes,
    resolver: createResolver(ctx.config),
    acceptRecipient: (address) =>
      acceptsInboundRecipient(ctx, address).catch((err: unknown) => {
        ctx.log.error({ err }, 'inbound recipient check failed')
        throw err
      }),
    onConnectionError: (err) => ctx.log.warn({ err }, 'inbound SMTP connection error'),
    async onMessage(message, report) {
      try {
        const outcome = await receiveInboundMessage(ctx, 'smtp', message, report)
        ctx.log.info({ messageId: message.messageId, ...outcome }, 'inbound email received')
      } catch (err) {
        ctx.log.error({ err, messageId: message.messageId }, 'inbound email not stored; the sender will retry')
        throw err
      }
    },
  })
  ctx.onClose(() => server.close())
  ctx.log.info({ host: ctx.config.inboundSmtpHost, port: server.port }, 'inbound SMTP receiver listening')
  return server
}
