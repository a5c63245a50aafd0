import { z } from 'zod'
import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { authProjectOf } from '../../http/project.js'
import { idempotencyClaim } from '../idempotency/header.js'
import { maxMessageBytes } from './attachments.js'
import { sendBody, sendResult } from './schemas.js'
import { sendTransactional } from './service.js'

// Base64 attachments in JSON take a third more than the message they become, plus the JSON around them.
const sendBodyLimitBytes = Math.ceil((maxMessageBytes * 4) / 3) + 1024 * 1024

export function registerSendRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/v1/send',
    {
      config: { auth: 'secret', sending: true, refusedWhilePaused: 'transactional' },
      bodyLimit: sendBodyLimitBytes,
      schema: {
        tags: ['public API'],
        body: sendBody,
        response: { 200: z.object({ success: z.literal(true), data: sendResult }) },
      },
    },
    async (request) => {
      const claim = idempotencyClaim(request, ctx.config.idempotencyTtlHours)
      const data = await sendTransactional(ctx, authProjectOf(request), request.body, claim)
      return { success: true as const, data }
    },
  )
}
