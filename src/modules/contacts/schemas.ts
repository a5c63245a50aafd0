import { z } from 'zod'
import { bulkAction, jobState } from '../../db/schema/index.js'
import { cursorPage, cursorPageQuery } from '../../http/pagination.js'

/** Documented limits of one write's `data` (spec "Limits" leaves them open). */
export const contactDataLimits = { maxKeys: 100, maxKeyLength: 100, maxBytes: 64 * 1024 } as const

export const contactData = z
  .record(z.string().min(1).max(contactDataLimits.maxKeyLength), z.unknown())
  .superRefine((data, ctx) => {
    const keys = Object.keys(data).length
    if (keys > contactDataLimits.maxKeys) {
      ctx.addIssue({
        code: 'too_big',
        origin: 'object',
        maximum: contactDataLimits.maxKeys,
        inclusive: true,
        input: data,
        message: `data may hold at most ${contactDataLimits.maxKeys} keys`,
      })
      return
    }
    if (Buffer.byteLength(JSON.stringify(data)) > contactDataLimits.maxBytes) {
      ctx.addIssue({
        code: 'too_big',
        origin: 'string',
        maximum: contactDataLimits.maxBytes,
        inclusive: true,
        input: data,
        message: `data may be at most ${contactDataLimits.maxBytes} bytes of JSON`,
      })
    }
  })

export const contactEmail = z.email().max(254)

export const contactIdParams = z.object({ id: z.uuid() })
export const jobIdParams = z.object({ jobId: z.uuid() })
export const fieldParams = z.object({ field: z.string().min(1).max(contactDataLimits.maxKeyLength) })

export const contactView = z.object({
  id: z.uuid(),
  email: z.string(),
  subscribed: z.boolean(),
  snoozedUntil: z.date().nullable(),
  data: z.record(z.string(), z.unknown()),
  createdAt: z.date(),
  updatedAt: z.date(),
})
export type ContactView = z.infer<typeof contactView>

// Email is optional here (and an absent body counts as empty) so a missing email gets the spec's plain 400
// from the service rather than a 422.
export const contactCreate = z.preprocess(
  (body) => body ?? {},
  z.object({
    email: contactEmail.optional(),
    subscribed: z.boolean().optional(),
    data: contactData.optional(),
  }),
)
export type ContactCreate = z.infer<typeof contactCreate>

export const contactCreated = contactView.extend({
  _meta: z.object({ isNew: z.boolean(), isUpdate: z.boolean() }),
})

export const contactUpdate = z.object({
  email: contactEmail.optional(),
  subscribed: z.boolean().optional(),
  /** Unsubscribes until this moment, then the snooze job resubscribes; null ends a snooze now. */
  snoozedUntil: z.iso.datetime({ offset: true }).nullable().optional(),
  data: contactData.optional(),
})
export type ContactUpdate = z.infer<typeof contactUpdate>

const sortFields = ['createdAt', 'email'] as const
export const contactListQuery = cursorPageQuery.extend({
  search: z.string().max(254).optional(),
  subscribed: z.enum(['true', 'false']).optional(),
  sort: z.enum(sortFields).catch('createdAt').default('createdAt'),
  dir: z.enum(['asc', 'desc']).catch('desc').default('desc'),
})
export type ContactListQuery = z.infer<typeof contactListQuery>

export const contactPage = cursorPage(contactView)

export const lookupBody = z.object({ emails: z.array(z.string().min(1).max(254)).min(1).max(500) })
export const lookupResult = z.object({
  found: z.array(contactView.pick({ id: true, email: true, subscribed: true })),
  notFound: z.array(z.string()),
})

export const fieldList = z.object({
  totalContacts: z.number().int(),
  fields: z.array(
    z.object({
      field: z.string(),
      type: z.string(),
      standard: z.boolean(),
      count: z.number().int(),
      coverage: z.number(),
    }),
  ),
})
export const fieldValues = z.object({
  field: z.string(),
  values: z.array(z.object({ value: z.unknown(), count: z.number().int() })),
})
export const fieldValuesQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) })
export const usageView = z.object({
  segments: z.array(z.object({ id: z.string(), name: z.string() })),
  campaigns: z.array(z.object({ id: z.string(), name: z.string() })),
  workflows: z.array(z.object({ id: z.string(), name: z.string() })),
})
export type UsageView = z.infer<typeof usageView>

export const jobAccepted = z.object({ jobId: z.uuid(), state: z.enum(jobState) })

export const importView = z.object({
  jobId: z.uuid(),
  state: z.enum(jobState),
  totalRows: z.number().int(),
  processedRows: z.number().int(),
  progress: z.number(),
  created: z.number().int(),
  updated: z.number().int(),
  failed: z.number().int(),
  errors: z.array(z.object({ row: z.number().int(), email: z.string().nullable(), message: z.string() })),
  error: z.string().nullable(),
  createdAt: z.date(),
  finishedAt: z.date().nullable(),
})
export type ImportView = z.infer<typeof importView>

export const bulkBody = z.object({ contactIds: z.array(z.uuid()).min(1).max(1000) })
export type BulkAction = (typeof bulkAction)[number]
export const bulkView = z.object({
  jobId: z.uuid(),
  action: z.enum(bulkAction),
  state: z.enum(jobState),
  total: z.number().int(),
  processed: z.number().int(),
  affected: z.number().int(),
  progress: z.number(),
  error: z.string().nullable(),
  createdAt: z.date(),
  finishedAt: z.date().nullable(),
})
export type BulkView = z.infer<typeof bulkView>
