import { z } from 'zod'
import { reservedHeaders } from '../../mail/outbound/compose.js'

const noLineBreaks = (value: string) => !/[\r\n]/.test(value)

const address = z.email().max(254)
const displayName = z.string().max(256).refine(noLineBreaks, 'must not contain line breaks')
const mailbox = z.object({ name: displayName.optional(), email: address })
const recipient = z.union([address, mailbox])

const maxRecipientsPerRequest = 100

const attachment = z
  .object({
    filename: z
      .string()
      .min(1)
      .max(255)
      .refine((value) => !/[\r\n"]/.test(value), 'must not contain line breaks or quotes'),
    content: z.base64(),
    contentType: z
      .string()
      .regex(
        /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(\s*;\s*[\w-]+=("[^"\r\n]*"|[\w.-]+))*$/,
        'must be a MIME type such as text/plain',
      ),
    contentId: z
      .string()
      .min(1)
      .max(255)
      .regex(/^[^\s<>"]+$/, 'must not contain spaces, angle brackets or quotes')
      .optional(),
    disposition: z.enum(['attachment', 'inline']).default('attachment'),
  })
  .refine((value) => value.disposition !== 'inline' || value.contentId !== undefined, {
    message: 'contentId is required when disposition is inline',
    path: ['contentId'],
  })

// On top of what compose never lets a custom header replace, Mailroom owns the reply path and the
// one-click unsubscribe headers, so a request that tries to set them is told so instead of being ignored.
const refusedHeaders = new Set([...reservedHeaders, 'reply-to', 'list-unsubscribe', 'list-unsubscribe-post'])
const headerName = z
  .string()
  .regex(/^[!-9;-~]+$/, 'must be printable ASCII without spaces, colons or line breaks')
  .refine((name) => !refusedHeaders.has(name.toLowerCase()), 'is set by Mailroom and cannot be overridden')
const headerValue = z.string().max(998).refine(noLineBreaks, 'must not contain CR or LF')

/** `POST /v1/send`. Unknown fields sent by existing clients (such as `type`) are ignored, not rejected. */
export const sendBody = z
  .object({
    to: z.union([recipient, z.array(recipient).min(1).max(maxRecipientsPerRequest)]),
    subject: z.string().min(1).max(998).refine(noLineBreaks, 'must not contain line breaks').optional(),
    body: z.string().min(1).optional(),
    template: z.uuid().optional(),
    from: z.union([address, mailbox]).optional(),
    name: displayName.optional(),
    subscribed: z.boolean().optional(),
    data: z.record(z.string(), z.unknown()).optional(),
    headers: z.record(headerName, headerValue).optional(),
    reply: address.optional(),
    attachments: z.array(attachment).max(10).optional(),
  })
  .superRefine((value, ctx) => {
    if (value.template) return
    for (const field of ['subject', 'body'] as const) {
      if (value[field] === undefined) {
        ctx.addIssue({ code: 'custom', path: [field], message: `${field} is required when no template is given` })
      }
    }
  })

export type SendBody = z.infer<typeof sendBody>

export const sendResult = z.object({
  emails: z.array(z.object({ contact: z.object({ id: z.uuid(), email: z.string() }), email: z.uuid() })),
  timestamp: z.string(),
})
export type SendResult = z.infer<typeof sendResult>
