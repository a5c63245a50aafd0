import type { AppContext } from '../../context.js'
import { type Outcome, settleEach } from '../../db/batcher.js'
import { wakeOutbox } from '../delivery/service.js'
import { type SubmissionToStore, storeSubmissions } from './store.js'

/**
 * Messages larger than this are stored in a transaction of their own: a group commit holds every message of its
 * batch in memory and in one statement, and a few 40 MB ones must not make that hundreds of megabytes.
 */
export const groupCommitMaxBytes = 256 * 1024

/**
 * The longest a submission waits for those of other open transactions before its commit starts without them. A
 * client sends its next message only after its 250, so with a few connections a commit that leaves one out makes
 * it wait for the next commit; this costs a lone slow upload at most this much.
 */
const gatherMs = 2

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

export type RelayStore = (item: SubmissionToStore, openTransactions: number) => Promise<string[]>

type Waiting = {
  item: SubmissionToStore
  openTransactions: number
  resolve(emailIds: string[]): void
  reject(err: unknown): void
}

const maxBatch = 64

/**
 * One commit at a time, of the submissions waiting when it starts. A client sends its next message only after its
 * 250, so with a few busy connections, commits that start as soon as anything waits settle into two halves of the
 * connections taking turns, each commit with half of them. A commit therefore starts once as many submissions
 * wait as there were open transactions when they ended (their clients are sending their DATA now), or `gatherMs`
 * after it could have started: one commit for all of them, half the commits.
 */
function createRelayStore(ctx: AppContext): RelayStore {
  let waiting: Waiting[] = []
  let running = false
  let scheduled = false
  let timer: NodeJS.Timeout | undefined

  const start = () => {
    clearTimeout(timer)
    timer = undefined
    if (running || waiting.length === 0) return
    const batch = waiting.slice(0, maxBatch)
    waiting = waiting.slice(maxBatch)
    running = true
    void storeMany(
      ctx,
      batch.map((entry) => entry.item),
    )
      .then(
        (outcomes) =>
          batch.forEach((entry, index) => {
            const outcome = outcomes[index]
            if (outcome?.ok) entry.resolve(outcome.value)
            else entry.reject(outcome ? outcome.error : new Error('group commit returned no outcome'))
          }),
        (err: unknown) => {
          for (const entry of batch) entry.reject(err)
        },
      )
      .finally(() => {
        running = false
        schedule()
      })
  }

  const consider = () => {
    scheduled = false
    if (running || waiting.length === 0) return
    const expected = Math.max(...waiting.map((entry) => entry.openTransactions))
    if (waiting.length >= Math.min(expected, maxBatch)) start()
    else timer ??= setTimeout(start, gatherMs)
  }

  // On the next turn of the event loop: submissions whose DATA ended in the same turn share a commit.
  const schedule = () => {
    if (scheduled || running) return
    scheduled = true
    setImmediate(consider)
  }

  return (item, openTransactions) =>
    new Promise((resolve, reject) => {
      waiting.push({ item, openTransactions, resolve, reject })
      schedule()
    })
}

const stores = new WeakMap<AppContext, RelayStore>()

/** The group commit of a context (tests run many in a process), made on first use. */
export function relayStoreOf(ctx: AppContext): RelayStore {
  let store = stores.get(ctx)
  if (!store) {
    store = createRelayStore(ctx)
    stores.set(ctx, store)
  }
  return store
}
