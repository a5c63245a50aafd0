import { type BuiltMessage, composeMessageJob, type MessageJob, type PrivateKeyCache } from './compose.js'
import { type RelayedJob, relayMessage } from './relayed.js'

/** What a compose thread is handed: a message to build (sent through the API, campaigns, workflows) or to relay. */
export type ComposeJob = MessageJob | RelayedJob

export function composeJob(job: ComposeJob, keys: PrivateKeyCache): Promise<BuiltMessage> {
  return 'relayed' in job ? relayMessage(job, keys) : composeMessageJob(job, keys)
}
