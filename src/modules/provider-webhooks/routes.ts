import { z } from 'zod'
import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import type { SnsTrust } from '../../mail/aws/sns.js'
import { receiveProviderMessage } from './service.js'

const providerResult = z.object({
  success: z.literal(true),
  data: z.object({ outcome: z.enum(['applied', 'duplicate', 'pending', 'ignored', 'confirmed', 'inbound']) }),
})

/** Internal receivers called by infrastructure: provider feedback through Amazon SNS. */
export async function registerProviderWebhookRoutes(app: App, ctx: AppContext, trust: SnsTrust): Promise<void> {
  await app.register(async (scope: App) => {
    // SNS posts its JSON as `text/plain; charset=UTF-8`; parsed as JSON in this scope only.
    scope.removeContentTypeParser('text/plain')
    scope.addContentTypeParser('text/plain', { parseAs: 'string' }, scope.getDefaultJsonParser('error', 'error'))
    scope.post(
      '/webhooks/email-provider',
      {
        // SNS posts feedback in bursts as large as a campaign, from few addresses; a 429 would lose reports
        // after SNS's few retries. Unsigned requests are refused before any database work.
        config: { auth: 'none', rateLimit: false },
        schema: { tags: ['internal'], response: { 200: providerResult } },
      },
      async (request) => ({
        success: true as const,
        data: { outcome: await receiveProviderMessage(ctx, trust, request.body) },
      }),
    )
  })
}
