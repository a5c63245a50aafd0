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
  /** `Feedback-ID` (feedback-headers.ts): added in front unless the client's message has it, then signed. */
  feedbackHeaders?: Record<string, string>
}

/** `headers` the message's header block does not have yet, as lines to put in front of it. */
function missingHeaderLines(message: Buffer, headers: Record<string, string>): string {
  const end = message.indexOf('\r\n\r\n')
  const block = `\r\n${message
    .subarray(0, end === -1 ? message.length : end)
    .toString('latin1')
    .toLowerCase()}`
  return Object.entries(headers)
    .filter(([name]) => !block.includes(`\r\n${name.toLowerCase()}:`))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')
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

/**
 * The client's message as it goes out: only its HTML parts change (tracking), the feedback headers it lacks go in
 * front, then the DKIM signature, which covers them.
 */
export async function relayMessage(job: RelayedJob, keys: PrivateKeyCache): Promise<BuiltMessage> {
  const { raw: submitted, subject } = job.relayed
  const stored = Buffer.from(submitted.buffer, submitted.byteOffset, submitted.byteLength)
  const { message, links } = job.tracking ? await tracked(stored, job.tracking) : { message: stored, links: undefined }
  const added = job.feedbackHeaders ? missingHeaderLines(message, job.feedbackHeaders) : ''
  const raw = signedBytes(added + message.toString('latin1'), job.dkim, keys)
  return links ? { raw, subject, links } : { raw, subject }
}
