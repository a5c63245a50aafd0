import type { AppContext } from '../../context.js'
import { batcherPer, type Outcome, settleEach } from '../../db/batcher.js'
import { wakeOutbox } from '../delivery/service.js'
import { type SubmissionToStore, storeSubmissions } from './store.js'

/**
 * Messages larger than this are stored in a transaction of their own: a group commit holds every message of its
 * batch in memory and in one statement, and a few 40 MB ones must not make that hundreds of megabytes.
 */
export const groupCommitMaxBytes = 256 * 1024

/**
 * Group commit of submissions (as send/batch.ts does for /v1/send): those whose DATA ends while earlier ones are
 * being stored share one transaction, and each answers after that commit. Any failure (a project over its cap)
 * rolls the batch back and stores its submissions one by one, so only the failing one is refused.
 */
async function storeMany(ctx: AppContext, items: SubmissionToStore[]): Promise<Outcome<string[]>[]> {
  try {
    const stored = await storeSubmissions(ctx, items)
    return stored.map((value) => ({ ok: true as const, value }))
  } catch {
    return settleEach(items, async (item) => (await storeSubmissions(ctx, [item]))[0] ?? [])
  } finally {
    wakeOutbox(ctx.pool)
  }
}

export const relayBatcherOf = batcherPer((ctx: AppContext) => ({
  maxSize: 64,
  // One at a time: the submissions of the few connections that end while it commits form the next batch, which
  // a second batch in flight would split (at 4 connections, ~1.4 messages a commit instead of ~2).
  maxInFlight: 1,
  run: (items: SubmissionToStore[]) => storeMany(ctx, items),
}))
