import type pg from 'pg'
import { wakeLoop } from '../../jobs/loop-wake.js'

export const webhookDeliveryLoopName = 'webhook-delivery'

/** Call after the commit that made messages due (never inside it): the delivery loop takes them now, not at its next poll. */
export function wakeWebhookDelivery(pool: pg.Pool): void {
  wakeLoop(pool, webhookDeliveryLoopName)
}
