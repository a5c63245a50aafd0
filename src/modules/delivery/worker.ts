import type { AppContext } from '../../context.js'
import { createTransportFromConfig } from '../../mail/transports/index.js'
import { type Outbox, type OutboxOptions, type ResolveDkimKey, startOutbox } from './outbox.js'

export type DeliveryWorkerOptions = Partial<OutboxOptions>

// Until the domains module lands (`getSigningKey(db, config, projectId, domain)`), there are no keys.
const noSigningKeys: ResolveDkimKey = async () => undefined

/** The outbox as a worker-role process runs it: the configured transport and the project's DKIM keys. */
export function startDeliveryWorker(ctx: AppContext, options: DeliveryWorkerOptions = {}): Outbox {
  return startOutbox(ctx, {
    ...options,
    transport: options.transport ?? createTransportFromConfig(ctx.config, ctx.db),
    resolveDkimKey: options.resolveDkimKey ?? noSigningKeys,
  })
}
