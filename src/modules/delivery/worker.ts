import type { AppContext } from '../../context.js'
import { createTransportFromConfig } from '../../mail/transports/index.js'
import { getSigningKey } from '../domains/service.js'
import { type Outbox, type OutboxOptions, startOutbox } from './outbox.js'

export type DeliveryWorkerOptions = Partial<OutboxOptions>

/** The outbox as a worker-role process runs it: the configured transport and the project's DKIM keys. */
export function startDeliveryWorker(ctx: AppContext, options: DeliveryWorkerOptions = {}): Outbox {
  return startOutbox(ctx, {
    ...options,
    transport: options.transport ?? createTransportFromConfig(ctx.config, ctx.db),
    resolveDkimKey:
      options.resolveDkimKey ?? ((projectId, domain) => getSigningKey(ctx.db, ctx.config, projectId, domain)),
  })
}
