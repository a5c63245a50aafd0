import { z } from 'zod'
import { conditionTreeSchema } from '../../conditions/index.js'
import { audienceType, campaignStatus, emailStatus } from '../../db/schema/index.js'
import { cursorPage, cursorPageQuery, offsetPage, searchablePageQuery } from '../../http/pagination.js'
import { emailMoments } from '../emails/schemas.js'
import { contentFields, templateType } from '../templates/schemas.js'
import { recipientStates } from './recipient-states.js'

export const campaignStatusSchema = z.enum(campaignStatus.enumValues)
const audienceTypeSchema = z.enum(audienceType.enumValues)

/**
 * A missing `segmentId` or `audienceCondition` is not a schema error here: the spec answers it with a 400 after
 * the merge of an update with the stored campaign, in the service (`audience-rules.ts`).
 */
const audienceFields = {
  audienceType: audienceTypeSchema,
  audienceCondition: conditionTreeSchema.nullable().optional(),
  segmentId: z.uuid().nullable().optional(),
}

export const campaignCreate = z.object({
  ...contentFields,
  type: templateType.default('MARKETING'),
  ...audienceFields,
})
export type CampaignCreate = z.infer<typeof campaignCreate>

/** An audience to count before it is saved on a campaign (the dashboard's live audience count). */
export const audienceCountBody = z.object({ type: templateType.default('MARKETING'), ...audienceFields })
export type AudienceCountBody = z.infer<typeof audienceCountBody>

export const audienceCount = z.object({ total: z.number().int() })
export type AudienceCount = z.infer<typeof audienceCount>

/** Partial despite the verb, as Plunk's PUT is: only the fields given change. */
export const campaignUpdate = z.object({ ...contentFields, type: templateType, ...audienceFields }).partial()
export type CampaignUpdate = z.infer<typeof campaignUpdate>

/** Campaign routes answer a non-uuid id with 422 (Plunk's `UtilitySchemas.id`). */
export const campaignIdParams = z.object({ id: z.uuid() })

/** No maximum is stated anywhere; the same as `/templates`, so one request never serialises a whole history. */
const maxCampaignPageSize = 100

export const campaignListQuery = searchablePageQuery(maxCampaignPageSize).extend({
  status: campaignStatusSchema.optional(),
})
export type CampaignListQuery = z.infer<typeof campaignListQuery>

/**
 * How far a SENDING campaign has got, from its counters: `queued` is the emails in the outbox waiting for the
 * transport, known once the fan-out has queued every recipient (null while it is still adding them).
 */
const campaignProgress = z.object({
  queued: z.number().int().nullable(),
  sent: z.number().int(),
  failed: z.number().int(),
  remaining: z.number().int(),
})
export type CampaignProgress = z.infer<typeof campaignProgress>

const count = z.number().int()

/** The audience size and what the emails trigger counts (migration 0013), as the campaign and its stats show them. */
const campaignCounters = z.object({
  totalRecipients: count,
  sentCount: count,
  deliveredCount: count,
  openedCount: count,
  clickedCount: count,
  bouncedCount: count,
  complainedCount: count,
  unsubscribedCount: count,
})

const campaignView = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  subject: z.string(),
  body: z.string(),
  from: z.string(),
  fromName: z.string().nullable(),
  replyTo: z.string().nullable(),
  type: templateType,
  status: campaignStatusSchema,
  audienceType: audienceTypeSchema,
  // Stored trees were validated on write; read back as they are, so a later tightening of the limits never
  // makes an old campaign unreadable.
  audienceCondition: z.record(z.string(), z.unknown()).nullable(),
  segmentId: z.uuid().nullable(),
  segment: z.object({ id: z.uuid(), name: z.string() }).nullable(),
  scheduledFor: z.date().nullable(),
  sentAt: z.date().nullable(),
  ...campaignCounters.shape,
  /** Only while SENDING; null otherwise. */
  progress: campaignProgress.nullable(),
  projectId: z.uuid(),
  createdAt: z.date(),
  updatedAt: z.date(),
})
export type CampaignView = z.infer<typeof campaignView>

export const campaignPage = offsetPage(campaignView)
export type CampaignPage = z.infer<typeof campaignPage>

/** Plunk wraps every single-campaign answer in `{success, data}`; duplicate, send and cancel add a `message`. */
export const campaignEnvelope = z.object({
  success: z.literal(true),
  data: campaignView,
  message: z.string().optional(),
})

export const successMessage = z.object({ success: z.literal(true), message: z.string() })

export const campaignTestBody = z.object({ email: z.email().max(254) })

/**
 * `scheduledFor` is any time `new Date()` reads (the spec), checked by the service for a 400 with its message;
 * omitted, null or empty sends now. `force` (owners only) sends despite the pre-send check's errors. The body
 * itself may be left out.
 */
export const campaignSendBody = z
  .object({ scheduledFor: z.unknown().optional(), force: z.boolean().optional() })
  .nullish()

// Percentages of `sentCount`; not bounded in the schema, so odd feedback can never turn a read into a 500.
const rate = z.number()

export const campaignStats = z.object({
  success: z.literal(true),
  data: campaignCounters.extend({
    /**
     * Emails the capture transport kept in the Mailbox instead of sending (MAIL_TRANSPORT=capture): sent from
     * Mailroom's side, but never delivered, opened or bounced, so they count here and not in `deliveredCount`.
     */
    capturedCount: count,
    openRate: rate,
    clickRate: rate,
    bounceRate: rate,
    deliveryRate: rate,
    complaintRate: rate,
    unsubscribeRate: rate,
  }),
})
export type CampaignStats = z.infer<typeof campaignStats>

export const campaignTimeseriesQuery = z.object({ granularity: z.enum(['hour', 'day']).default('hour') })
export type CampaignTimeseriesQuery = z.infer<typeof campaignTimeseriesQuery>

/** Emails of a campaign by bucket and activity; buckets without any are left out. */
export const campaignTimeseries = z.object({
  granularity: z.enum(['hour', 'day']),
  data: z.array(
    z.object({
      bucket: z.date(),
      /** `captured`: kept in the Mailbox by the capture transport (by the moment it was captured). */
      activity: z.enum(['sent', 'captured', 'delivered', 'opened', 'clicked', 'bounced']),
      count: z.number().int(),
    }),
  ),
})
export type CampaignTimeseries = z.infer<typeof campaignTimeseries>

export const recipientListQuery = cursorPageQuery.extend({
  /** Recipients whose email reached this state (every recipient without one); an email is in each state it reached. */
  state: z.enum(recipientStates).optional(),
})
export type RecipientListQuery = z.infer<typeof recipientListQuery>

export const recipientCsvQuery = z.object({ state: z.enum(recipientStates).optional() })

const campaignRecipient = z.object({
  emailId: z.uuid(),
  contactId: z.uuid().nullable(),
  email: z.string(),
  status: z.enum(emailStatus.enumValues),
  ...emailMoments,
  /** Why a FAILED email was given up on (the receiving server's reply, a suppression). */
  failureReason: z.string().nullable(),
})
export type CampaignRecipient = z.infer<typeof campaignRecipient>

export const recipientPage = cursorPage(campaignRecipient)
