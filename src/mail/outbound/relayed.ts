import type { BuiltMessage, DkimKey, PrivateKeyCache } from './compose.js'
import { signedBytes } from './compose.js'
import { type EmailTracking, emailTracker, type TrackedLink } from './tracking-links.js'
import { trackHtmlParts } from './tracking-mime.js'

/**
 * A compose thread's job for mail taken over SMTP submission: the client's message as stored (its headers
 * final: no Bcc, a Message-ID and a Date), tracked when asked, then signed when a key is given.
 */
export type RelayedJob = {
  relayed: { raw: Uint8Array; subject: string }
  dkim?: DkimKey
  tracking?: EmailTracking
}

/**
 * Tracking is the only change, and it must never cost the message: a MIME structure the splitter refuses (more
 * parts than it allows, say) goes out as the client wrote it, untracked.
 */
async function tracked(stored: Buffer, tracking: EmailTracking): Promise<{ message: Buffer; links?: TrackedLink[] }> {
  const tracker = emailTracker(tracking)
  try {
    const message = await trackHtmlParts(stored, tracker.options)
    const links = tracker.links()
    return links.length ? { message, links } : { message }
  } catch {
    return { message: stored }
  }
}

/** The client's message as it goes out: only its HTML parts change (tracking), then the DKIM signature in front. */
export async function relayMessage(job: RelayedJob, keys: PrivateKeyCache): Promise<BuiltMessage> {
  const { raw: submitted, subject } = job.relayed
  const stored = Buffer.from(submitted.buffer, submitted.byteOffset, submitted.byteLength)
  const { message, links } = job.tracking ? await tracked(stored, job.tracking) : { message: stored, links: undefined }
  const raw = signedBytes(message.toString('latin1'), job.dkim, keys)
  return links ? { raw, subject, links } : { raw, subject }
}
