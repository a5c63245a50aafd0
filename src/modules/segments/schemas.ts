import { z } from 'zod'
import { conditionTreeSchema } from '../../conditions/index.js'
import { segmentType } from '../../db/schema/index.js'
import { offsetPage, offsetPageQuery } from '../../http/pagination.js'
import { contactView } from '../contacts/schemas.js'

/** Plunk's limits (plunk-compat §3). */
const name = z.string().trim().min(1).max(100)
const description = z.string().max(500).nullable().optional()

const segmentTypes = z.enum(segmentType.enumValues)

/**
 * `condition` is checked only for a DYNAMIC segment: a STATIC one ignores it (stored as null), as Plunk does.
 * A missing name or condition is answered before this schema runs, with the legacy 400 (routes.ts).
 */
export const segmentCreate = z
  .object({
    name,
    description,
    type: segmentTypes.default('DYNAMIC'),
    condition: z.unknown().optional(),
    trackMembership: z.boolean().default(false),
  })
  .transform((body, ctx) => {
    const { condition, ...rest } = body
    if (rest.type === 'STATIC') return { ...rest, condition: null }
    const parsed = conditionTreeSchema.safeParse(condition)
    if (parsed.success) return { ...rest, condition: parsed.data }
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: ['condition', ...issue.path] })
    return z.NEVER
  })
export type SegmentCreate = z.infer<typeof segmentCreate>

/** `type` cannot change; `condition` is ignored on a STATIC segment. */
export const segmentUpdate = z.object({
  name: name.optional(),
  description,
  condition: conditionTreeSchema.optional(),
  trackMembership: z.boolean().optional(),
})
export type SegmentUpdate = z.infer<typeof segmentUpdate>

/** Any string: an id that is not a uuid is simply not found (Plunk does not check segment ids). */
export const segmentIdParams = z.object({ id: z.string().min(1) })

export const segmentView = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  type: segmentTypes,
  // Shaped loosely: a stored condition is not validated again on the way out.
  condition: z.looseObject({ logic: z.enum(['AND', 'OR']), groups: z.array(z.unknown()) }).nullable(),
  trackMembership: z.boolean(),
  memberCount: z.number().int(),
  projectId: z.uuid(),
  createdAt: z.date(),
  updatedAt: z.date(),
})

export const segmentList = z.array(segmentView)

/** Segment contacts are paged by at most 100 (spec "Pagination"); a larger `pageSize` is clamped like elsewhere. */
export const segmentContactsQuery = offsetPageQuery(100)
export type SegmentContactsQuery = z.infer<typeof segmentContactsQuery>

export const segmentContactsPage = offsetPage(contactView)
export type SegmentContactsPage = z.infer<typeof segmentContactsPage>

const maxMemberEmails = 500

const memberEmails = z.array(z.email().max(254)).min(1).max(maxMemberEmails)

export const membersAdd = z.object({
  emails: memberEmails,
  /** Creates contacts for unknown addresses (subscribed as `subscribed` says, true by default) and adds them. */
  createMissing: z.boolean().default(false),
  subscribed: z.boolean().default(true),
})
export type MembersAdd = z.infer<typeof membersAdd>

export const membersRemove = z.object({ emails: memberEmails })

export const membersAdded = z.object({
  /** Contacts matched (existing members included), after any were created. */
  added: z.number().int(),
  /** Contacts created by `createMissing`. */
  created: z.number().int(),
  /** Addresses as given that matched no contact. */
  notFound: z.array(z.string()),
})
export type MembersAdded = z.infer<typeof membersAdded>

export const membersRemoved = z.object({ removed: z.number().int() })

export const computeResult = z.object({
  added: z.number().int(),
  removed: z.number().int(),
  total: z.number().int(),
})
export type ComputeResult = z.infer<typeof computeResult>

/** `POST /segments/preview`: a condition not yet saved; `segmentId` names the segment being edited, for cycles. */
export const segmentPreviewBody = z.object({
  condition: conditionTreeSchema,
  segmentId: z.uuid().optional(),
  limit: z.number().int().min(1).max(50).default(10),
})
export type SegmentPreviewBody = z.infer<typeof segmentPreviewBody>

export const segmentPreview = z.object({ total: z.number().int(), contacts: z.array(contactView) })
export type SegmentPreview = z.infer<typeof segmentPreview>

export const refreshResult = z.object({ memberCount: z.number().int() })
