import { allOk, batcherPer } from '../../db/batcher.js'
import type { Database } from '../../db/client.js'
import { findRecipientStates, findSenderStates, type RecipientKey, type SenderKey } from './sql.js'

/**
 * The checks of MAIL FROM and RCPT TO run for every message, on every connection: those asked while an earlier
 * lookup of the same kind is under way share the next statement (src/db/batcher.ts), as API keys do. Nothing is
 * cached, so a pause, a suppression or a full cap is seen by the very next command. They read committed state
 * through the pool, outside any transaction.
 */
// Two in flight, as for API keys: the connections a commit answered ask at nearly the same time, and with one the
// first would go alone and the others wait for it before their own.
const lookupOptions = { maxSize: 256, maxInFlight: 2 }

export const senderStateLookupOf = batcherPer((db: Database) => ({
  ...lookupOptions,
  run: async (keys: SenderKey[]) => allOk(await findSenderStates(db, keys)),
}))

export const recipientStateLookupOf = batcherPer((db: Database) => ({
  ...lookupOptions,
  run: async (keys: RecipientKey[]) => allOk(await findRecipientStates(db, keys)),
}))
