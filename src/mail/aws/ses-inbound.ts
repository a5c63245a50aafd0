import { simpleParser } from 'mailparser'
import { z } from 'zod'
import { bodyOf, type InboundMessage } from '../inbound/message.js'
import type { Verdict } from '../inbound/verdicts.js'
import { messageJson } from './sns.js'

/**
 * Amazon SES email receiving: the `Message` of an SNS notification from a receipt rule (`notificationType`
 * `Received`). An SNS action includes the raw message as `content` (UTF8 or BASE64 per `receipt.action.encoding`);
 * other actions (S3, Lambda, ...) send the same notification without it, so the body is then empty.
 */
export type SesInbound = { kind: 'received'; message: InboundMessage } | { kind: 'ignored'; reason: string }

// SES's verdict values are ours (inbound-verdicts.ts); anything newer is "no verdict reached".
const verdict = z
  .object({ status: z.string() })
  .optional()
  .transform((value): Verdict => {
    // An old notification without the field (SES added dmarcVerdict later): the check was not performed.
    if (value === undefined) return 'DISABLED'
    const status = value.status.toUpperCase()
    return status === 'PASS' || status === 'FAIL' || status === 'GRAY' || status === 'DISABLED'
      ? status
      : 'PROCESSING_FAILED'
  })

const isoTimestamp = z.string().refine((value) => !Number.isNaN(Date.parse(value)), 'not a timestamp')

const received = z.object({
  notificationType: z.literal('Received'),
  receipt: z.object({
    timestamp: isoTimestamp.optional(),
    processingTimeMillis: z.number().nonnegative().optional(),
    recipients: z.array(z.string()).min(1),
    spamVerdict: verdict,
    virusVerdict: verdict,
    spfVerdict: verdict,
    dkimVerdict: verdict,
    dmarcVerdict: verdict,
    action: z.object({ type: z.string(), encoding: z.string().optional() }).optional(),
  }),
  mail: z.object({
    timestamp: isoTimestamp,
    source: z.string(),
    messageId: z.string().min(1),
    commonHeaders: z
      .object({
        from: z.array(z.string()).optional(),
        to: z.array(z.string()).optional(),
        subject: z.string().optional(),
      })
      .optional(),
  }),
  content: z.string().optional(),
})

type Received = z.infer<typeof received>

/** Reads one SNS `Message`; never throws (a message that will never parse must not be retried by SNS). */
export async function parseSesInbound(message: unknown): Promise<SesInbound> {
  const json = messageJson(message)
  if (json === undefined) return { kind: 'ignored', reason: 'not JSON' }
  if (typeof json !== 'object' || json === null || !('notificationType' in json)) {
    return { kind: 'ignored', reason: 'not an SES receiving notification' }
  }
  if (json.notificationType !== 'Received') return { kind: 'ignored', reason: 'not a Received notification' }
  const parsed = received.safeParse(json)
  if (!parsed.success) return { kind: 'ignored', reason: `malformed Received notification: ${parsed.error.message}` }
  return { kind: 'received', message: await toInboundMessage(parsed.data) }
}

async function toInboundMessage(notification: Received): Promise<InboundMessage> {
  const { mail, receipt } = notification
  const content = await readContent(notification)
  const body = content ? bodyOf(content) : ''
  return {
    messageId: mail.messageId,
    from: mail.source,
    fromHeader: mail.commonHeaders?.from?.[0] ?? content?.from?.text ?? mail.source,
    // The To header here is in display form; the envelope recipient is the address we received for.
    to: receipt.recipients[0] ?? '',
    subject: mail.commonHeaders?.subject ?? content?.subject ?? '',
    timestamp: new Date(mail.timestamp).toISOString(),
    recipients: receipt.recipients,
    hasContent: body !== '',
    body,
    spamVerdict: receipt.spamVerdict,
    virusVerdict: receipt.virusVerdict,
    spfVerdict: receipt.spfVerdict,
    dkimVerdict: receipt.dkimVerdict,
    dmarcVerdict: receipt.dmarcVerdict,
    processingTimeMillis: receipt.processingTimeMillis ?? 0,
  }
}

async function readContent(notification: Received) {
  if (notification.content === undefined) return undefined
  const encoding = notification.receipt.action?.encoding?.toUpperCase() === 'BASE64' ? 'base64' : 'utf8'
  // A broken MIME body still leaves the headers SES parsed for us; the event just has no body then.
  return simpleParser(Buffer.from(notification.content, encoding)).catch(() => undefined)
}
