import { z } from 'zod'
import { messageJson } from './sns.js'

/**
 * Amazon SES feedback, as delivered in the `Message` of an SNS notification, normalized into one shape.
 * SES has two JSON forms: event publishing through a configuration set (`eventType`, all event kinds, with
 * `mail.tags`) and the older identity notifications (`notificationType`: Delivery, Bounce, Complaint only).
 * Both carry the same per-kind objects, so one set of schemas reads both.
 */

export type SesBounceType = 'Permanent' | 'Transient'

type Common = {
  /** `mail.messageId`: the id SES returned when the email was sent. */
  providerMessageId: string
  /** The recipients this event is about (not every recipient of the email for a bounce or complaint). */
  recipients: string[]
  occurredAt: Date
  /** `mail.tags` (event publishing only, `{}` otherwise): SES's own tags plus those we set when sending. */
  tags: Record<string, string[]>
}

export type SesFeedback =
  | (Common & { kind: 'send' })
  | (Common & { kind: 'delivery'; diagnostic?: string })
  | (Common & { kind: 'bounce'; bounceType: SesBounceType; bounceSubType?: string; diagnostic?: string })
  | (Common & { kind: 'complaint'; complaintFeedbackType?: string; userAgent?: string })
  | (Common & { kind: 'open'; userAgent?: string; ipAddress?: string })
  | (Common & { kind: 'click'; link: string; userAgent?: string; ipAddress?: string })
  | (Common & { kind: 'delivery_delay'; delayType?: string; diagnostic?: string })
  | (Common & { kind: 'reject'; diagnostic?: string })
  | { kind: 'ignored'; reason: string }

const timestamp = z.string().transform((value, ctx) => {
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) {
    ctx.addIssue({ code: 'custom', message: 'not a timestamp' })
    return z.NEVER
  }
  return date
})

// SES writes null for some absent values (userAgent, diagnosticCode); null and missing mean the same here.
const text = z
  .string()
  .nullish()
  .transform((value) => value ?? undefined)

const recipient = z.object({ emailAddress: z.string(), diagnosticCode: text })

const mail = z.object({
  messageId: z.string().min(1),
  timestamp,
  destination: z.array(z.string()).default([]),
  tags: z.record(z.string(), z.array(z.string())).optional(),
})

const bounce = z.object({
  bounceType: z.enum(['Permanent', 'Transient', 'Undetermined']),
  bounceSubType: text,
  bouncedRecipients: z.array(recipient),
  timestamp,
})

const complaint = z.object({
  complainedRecipients: z.array(recipient),
  timestamp,
  userAgent: text,
  complaintFeedbackType: text,
})

const delivery = z.object({ recipients: z.array(z.string()), timestamp, smtpResponse: text })
const open = z.object({ timestamp, userAgent: text, ipAddress: text })
const click = open.extend({ link: z.string() })
const deliveryDelay = z.object({
  timestamp,
  delayType: text,
  delayedRecipients: z.array(recipient),
})
const reject = z.object({ reason: text })
const renderingFailure = z.object({ errorMessage: text })

type Mail = z.output<typeof mail>
type Recipient = z.output<typeof recipient>

function common(sent: Mail, recipients: string[], occurredAt: Date): Common {
  return { providerMessageId: sent.messageId, recipients, occurredAt, tags: sent.tags ?? {} }
}

type Reader = (json: unknown) => SesFeedback | undefined

function reader<T extends z.ZodType>(schema: T, build: (data: z.output<T>) => SesFeedback): Reader {
  return (json) => {
    const result = schema.safeParse(json)
    return result.success ? build(result.data) : undefined
  }
}

// Mailroom renders its own content and never uses SES templates; if one fails, nothing was sent,
// which is what a reject means too.
const readRenderingFailure = reader(z.object({ mail, failure: renderingFailure }), ({ mail, failure }) => ({
  kind: 'reject',
  ...common(mail, mail.destination, mail.timestamp),
  ...optional('diagnostic', failure.errorMessage),
}))

/** Keyed by `eventType` (event publishing) or `notificationType` (identity notifications). */
const readers: Record<string, Reader> = {
  Send: reader(z.object({ mail }), ({ mail }) => ({ kind: 'send', ...common(mail, mail.destination, mail.timestamp) })),
  Delivery: reader(z.object({ mail, delivery }), ({ mail, delivery }) => ({
    kind: 'delivery',
    ...common(mail, delivery.recipients, delivery.timestamp),
    ...optional('diagnostic', delivery.smtpResponse),
  })),
  Bounce: reader(z.object({ mail, bounce }), ({ mail, bounce }) => ({
    kind: 'bounce',
    ...common(mail, addresses(bounce.bouncedRecipients), bounce.timestamp),
    // Only a bounce SES calls Permanent unsubscribes a contact. "Undetermined" means SES could not
    // classify the bounce message; treating it as permanent would unsubscribe people on a guess.
    bounceType: bounce.bounceType === 'Permanent' ? 'Permanent' : 'Transient',
    ...optional('bounceSubType', bounce.bounceSubType),
    ...optional('diagnostic', firstDiagnostic(bounce.bouncedRecipients)),
  })),
  Complaint: reader(z.object({ mail, complaint }), ({ mail, complaint }) => ({
    kind: 'complaint',
    ...common(mail, addresses(complaint.complainedRecipients), complaint.timestamp),
    ...optional('complaintFeedbackType', complaint.complaintFeedbackType),
    ...optional('userAgent', complaint.userAgent),
  })),
  Open: reader(z.object({ mail, open }), ({ mail, open }) => ({
    kind: 'open',
    ...common(mail, mail.destination, open.timestamp),
    ...clientOf(open),
  })),
  Click: reader(z.object({ mail, click }), ({ mail, click }) => ({
    kind: 'click',
    ...common(mail, mail.destination, click.timestamp),
    link: click.link,
    ...clientOf(click),
  })),
  DeliveryDelay: reader(z.object({ mail, deliveryDelay }), ({ mail, deliveryDelay }) => ({
    kind: 'delivery_delay',
    ...common(mail, addresses(deliveryDelay.delayedRecipients), deliveryDelay.timestamp),
    ...optional('delayType', deliveryDelay.delayType),
    ...optional('diagnostic', firstDiagnostic(deliveryDelay.delayedRecipients)),
  })),
  Reject: reader(z.object({ mail, reject }), ({ mail, reject }) => ({
    kind: 'reject',
    ...common(mail, mail.destination, mail.timestamp),
    ...optional('diagnostic', reject.reason),
  })),
  RenderingFailure: readRenderingFailure,
  // SES documents the type as RenderingFailure but its published example spells it with a space.
  'Rendering Failure': readRenderingFailure,
}

const head = z.object({ eventType: text, notificationType: text })

/** Never throws: anything that is not a well-formed feedback event we act on comes back as `ignored`. */
export function parseSesNotification(message: unknown): SesFeedback {
  const json = messageJson(message)
  if (json === undefined) return { kind: 'ignored', reason: 'not JSON' }
  const parsedHead = head.safeParse(json)
  const type = parsedHead.success ? (parsedHead.data.eventType ?? parsedHead.data.notificationType) : undefined
  if (type === undefined) return { kind: 'ignored', reason: 'neither eventType nor notificationType' }
  // Subscription events concern SES-managed contact lists, which Mailroom does not use: it keeps its own.
  const read = Object.hasOwn(readers, type) ? readers[type] : undefined
  if (read === undefined) return { kind: 'ignored', reason: `unhandled type ${type}` }
  return read(json) ?? { kind: 'ignored', reason: `malformed ${type}` }
}

function addresses(recipients: readonly Recipient[]): string[] {
  return recipients.map((entry) => entry.emailAddress)
}

function firstDiagnostic(recipients: readonly Recipient[]): string | undefined {
  return recipients.find((entry) => entry.diagnosticCode)?.diagnosticCode
}

function clientOf(data: { userAgent?: string | undefined; ipAddress?: string | undefined }) {
  return { ...optional('userAgent', data.userAgent), ...optional('ipAddress', data.ipAddress) }
}

/** `{key: value}` when the value is present, `{}` otherwise, so results carry no `undefined` fields. */
function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string }
}
