import type pg from 'pg'
import { wakeLoop } from '../../jobs/loop-wake.js'

export const campaignsLoopName = 'campaigns'

/** Call after the transaction that set a campaign sending has committed: its fan-out starts now, not at a poll. */
export function wakeCampaignsLoop(pool: pg.Pool): void {
  wakeLoop(pool, campaignsLoopName)
}
