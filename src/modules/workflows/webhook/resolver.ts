import type { AppContext } from '../../../context.js'
import { createResolver, type DnsResolver } from '../../../mail/dns.js'

const resolvers = new WeakMap<AppContext, DnsResolver>()

/**
 * The resolver outbound webhook calls check addresses with, one per context (through DNS_SERVERS like every
 * lookup): workflow steps and project webhooks share its cache.
 */
export function webhookResolverOf(ctx: AppContext): DnsResolver {
  let resolver = resolvers.get(ctx)
  if (!resolver) {
    resolver = createResolver(ctx.config)
    resolvers.set(ctx, resolver)
  }
  return resolver
}
