import { isSoleWorker } from '../../config.js'
import type { AppContext } from '../../context.js'
import { createTransportFromConfig } from '../../mail/transports/index.js'
import { getSigningKey } from '../domains/service.js'
import { type Outbox, type OutboxOptions, startOutbox } from './outbox.js'

export type DeliveryWorkerOptions = Partial<OutboxOptions>

/** The outbox as a worker-role process runs it: the configured transport, the project's DKIM keys and tracking links. */
export function startDeliveryWorker(ctx: AppContext, options: DeliveryWorkerOptions = {}): Outbox {
  // Tracking and unsubscribe links point at PUBLIC_URL; a loopback one breaks them for every real recipient.
  const publicHost = new URL(ctx.config.publicUrl).hostname
  if (ctx.config.mailTransport !== 'capture' && /^(localhost|127\.|\[::1\])/.test(publicHost)) {
    ctx.log.warn(
      { publicUrl: ctx.config.publicUrl },
      'PUBLIC_URL is a loopback address: links in sent mail will not work',
    )
  }
  return startOutbox(ctx, {
    tracking: { publicUrl: ctx.config.publicUrl, secret: ctx.config.secret },
    // Reports to `fbl@` a sending domain are taken by the built-in receiver; without it no one would read them.
    ...(ctx.config.inboundSmtpPort === undefined ? {} : { complaintLoop: { secret: ctx.config.secret } }),
    soleWorker: isSoleWorker(ctx.config),
    composeThreads: ctx.config.composeThreads,
    leaseSeconds: ctx.config.crashRecovery.outboxLeaseSeconds,
    ...options,
    transport: options.transport ?? createTransportFromConfig(ctx.config, ctx.db),
    resolveDkimKey:
      options.resolveDkimKey ?? ((projectId, domain) => getSigningKey(ctx.db, ctx.config, projectId, domain)),
  })
}
