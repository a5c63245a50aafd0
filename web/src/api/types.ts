import type { activityListQuery, activityPage, activityTypeList } from '@server/modules/activity/schemas.js'
import type { timeseries, topCampaigns, topEvents } from '@server/modules/analytics/schemas.js'
import type { messageView } from '@server/modules/auth/schemas.js'
import type {
  billingConsumptionView,
  billingInvoicesView,
  billingLimitsBody,
  billingLimitsView,
  sessionUrlView,
} from '@server/modules/billing/schemas.js'
import type { campaignCheck, templateCheck } from '@server/modules/campaigns/presend/schemas.js'
import type { recipientStates } from '@server/modules/campaigns/recipient-states.js'
import type {
  audienceCount,
  audienceCountBody,
  campaignCreate,
  campaignEnvelope,
  campaignPage,
  campaignStats,
  campaignTimeseries,
  campaignUpdate,
  recipientPage,
} from '@server/modules/campaigns/schemas.js'
import type { capturedMessageView, mailboxPage } from '@server/modules/captured-mail/schemas.js'
import type { configView } from '@server/modules/config/schemas.js'
import type {
  bulkView,
  contactListQuery,
  contactPage,
  contactView,
  fieldList,
  importView,
  jobAccepted,
  usageView,
} from '@server/modules/contacts/schemas.js'
import type { dnsRecordView, domainView } from '@server/modules/domains/schemas.js'
import type { emailListQuery, emailPage, emailTimeline } from '@server/modules/emails/schemas.js'
import type { eventNameList, eventStats } from '@server/modules/event-log/schemas.js'
import type {
  invitationResponse,
  inviteResponse,
  memberInvite,
  memberListResponse,
  memberRole,
  pendingInvitationListResponse,
} from '@server/modules/members/schemas.js'
import type {
  projectConfirmation,
  projectCreate,
  projectUpdate,
  projectView,
} from '@server/modules/projects/schemas.js'
import type { securityView } from '@server/modules/reputation/schemas.js'
import type {
  membersAdded,
  membersRemoved,
  segmentContactsPage,
  segmentCreate,
  segmentList,
  segmentPreview,
  segmentUpdate,
} from '@server/modules/segments/schemas.js'
import type { setupStateView } from '@server/modules/setup-state/service.js'
import type { suppressionCreate, suppressionPage } from '@server/modules/suppressions/schemas.js'
import type {
  templateCreate,
  templatePage,
  templatePreview,
  templateType,
  templateUsage,
  templateView,
} from '@server/modules/templates/schemas.js'
import type { uploadView } from '@server/modules/uploads/schemas.js'
import type { credentials, userView } from '@server/modules/users/schemas.js'
import type {
  webhookCreate,
  webhookCreated,
  webhookMessageDetail,
  webhookMessageListQuery,
  webhookMessagePage,
  webhookReplay,
  webhookReplayed,
  webhookSaved,
  webhookSecretRotated,
  webhookUpdate,
  webhookView,
} from '@server/modules/webhooks/schemas.js'
import type {
  executionDetail,
  executionPage,
  executionStart,
  executionStatuses,
  executionView,
} from '@server/modules/workflows/executions/schemas.js'
import type {
  stepCreate,
  stepDetail,
  stepTypeSchema,
  stepUpdate,
  stepView,
  transitionCreate,
  transitionView,
  workflowCreate,
  workflowDetail,
  workflowPage,
  workflowUpdate,
  workflowView,
} from '@server/modules/workflows/schemas.js'
import type { delayConfig, sendEmailConfig } from '@server/modules/workflows/step-config/config.js'
import type { z } from 'zod'

/** A body as it crosses the wire: JSON turns the server's Date values into ISO strings. */
type Wire<T> = T extends Date
  ? string
  : T extends readonly (infer Item)[]
    ? Wire<Item>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T

/** What a route answers with: its zod response schema's output, serialised. */
type Response<Schema extends z.ZodType> = Wire<z.output<Schema>>
/** What a route accepts: its zod body schema's input. */
type Request<Schema extends z.ZodType> = z.input<Schema>
/** A cursor-paged list's query string: `limit` is coerced by the route (its input is `unknown`); we send numbers. */
type ListQuery<Schema extends z.ZodType> = Omit<z.input<Schema>, 'limit'> & { limit?: number }

export type User = Response<typeof userView>
export type Credentials = Request<typeof credentials>
export type Project = Response<typeof projectView>
export type ProjectCreate = Request<typeof projectCreate>
export type Domain = Response<typeof domainView>
export type DnsRecord = Response<typeof dnsRecordView>
export type Contact = Response<typeof contactView>
export type ContactPage = Response<typeof contactPage>
export type ContactListQuery = ListQuery<typeof contactListQuery>
export type Template = Response<typeof templateView>
export type TemplatePage = Response<typeof templatePage>
export type TemplateInput = Request<typeof templateCreate>
export type TemplateType = z.output<typeof templateType>
export type CapturedMessage = Response<typeof capturedMessageView>
export type MailboxPage = Response<typeof mailboxPage>
export type CampaignPage = Response<typeof campaignPage>
export type Campaign = CampaignPage['data'][number]
export type CampaignCreated = Response<typeof campaignEnvelope>
export type CampaignInput = Request<typeof campaignCreate>
export type Segment = Response<typeof segmentList>[number]
export type AppConfig = Response<typeof configView>
export type SmtpRelay = AppConfig['smtpRelay']
export type Message = Response<typeof messageView>
export type Invitation = Response<typeof invitationResponse>['data']
export type SetupState = Response<typeof setupStateView>
export type ProjectUpdate = Request<typeof projectUpdate>
export type ProjectConfirmation = Request<typeof projectConfirmation>
export type MemberRole = z.output<typeof memberRole>
export type Member = Response<typeof memberListResponse>['data'][number]
export type MemberInvite = Request<typeof memberInvite>
export type InviteResult = Response<typeof inviteResponse>['data']
export type PendingInvitation = Response<typeof pendingInvitationListResponse>['data'][number]
export type BillingLimits = Response<typeof billingLimitsView>
export type BillingLimitsInput = Request<typeof billingLimitsBody>
export type BillingConsumption = Response<typeof billingConsumptionView>
export type BillingInvoices = Response<typeof billingInvoicesView>
export type SessionUrl = Response<typeof sessionUrlView>
export type Security = Response<typeof securityView>
export type JobAccepted = Response<typeof jobAccepted>
export type ContactImport = Response<typeof importView>
export type BulkJob = Response<typeof bulkView>
export type ContactFields = Response<typeof fieldList>
export type MembersAdded = Response<typeof membersAdded>
export type TemplatePreview = Response<typeof templatePreview>
export type TemplateUsage = Response<typeof templateUsage>
export type Upload = Response<typeof uploadView>
export type SuppressionPage = Response<typeof suppressionPage>
export type Suppression = SuppressionPage['data'][number]
export type SuppressionInput = Request<typeof suppressionCreate>
export type ActivityPage = Response<typeof activityPage>
export type ActivityListQuery = ListQuery<typeof activityListQuery>
export type Activity = ActivityPage['data'][number]
export type ActivityTypes = Response<typeof activityTypeList>
export type Timeseries = Response<typeof timeseries>
export type TopCampaigns = Response<typeof topCampaigns>
export type TopEvents = Response<typeof topEvents>
export type EventStats = Response<typeof eventStats>
export type FieldUsage = Response<typeof usageView>
export type EventNameList = Response<typeof eventNameList>
export type SegmentInput = Request<typeof segmentCreate>
export type SegmentUpdate = Request<typeof segmentUpdate>
export type SegmentPreview = Response<typeof segmentPreview>
export type SegmentContactsPage = Response<typeof segmentContactsPage>
export type MembersRemoved = Response<typeof membersRemoved>
export type CampaignUpdate = Request<typeof campaignUpdate>
export type CampaignStats = Response<typeof campaignStats>
export type CampaignCheck = Response<typeof campaignCheck>['data']
export type TemplateCheck = Response<typeof templateCheck>
export type PresendFinding = TemplateCheck['findings'][number]
export type CampaignTimeseries = Response<typeof campaignTimeseries>
export type AudienceCountInput = Request<typeof audienceCountBody>
export type AudienceCount = Response<typeof audienceCount>
export type WorkflowPage = Response<typeof workflowPage>
export type WorkflowListItem = WorkflowPage['data'][number]
export type WorkflowInput = Request<typeof workflowCreate>
export type WorkflowChange = Request<typeof workflowUpdate>
export type Workflow = Response<typeof workflowView>
export type WorkflowDetail = Response<typeof workflowDetail>
export type WorkflowStep = Response<typeof stepDetail>
export type StepSaved = Response<typeof stepView>
export type Transition = Response<typeof transitionView>
export type StepType = z.output<typeof stepTypeSchema>
export type StepInput = Request<typeof stepCreate>
export type StepChange = Request<typeof stepUpdate>
export type TransitionInput = Request<typeof transitionCreate>
export type SendEmailConfig = Request<typeof sendEmailConfig>
export type DelayConfig = Request<typeof delayConfig>
export type ExecutionStatus = (typeof executionStatuses)[number]
export type ExecutionPage = Response<typeof executionPage>
export type ExecutionDetail = Response<typeof executionDetail>
export type ExecutionInput = Request<typeof executionStart>
export type ExecutionStarted = Response<typeof executionView>
export type EmailTimeline = Response<typeof emailTimeline>
export type TimelineEntry = EmailTimeline['history'][number]
export type EmailPage = Response<typeof emailPage>
export type EmailSummary = EmailPage['data'][number]
export type EmailStatus = EmailSummary['status']
export type EmailListQuery = ListQuery<typeof emailListQuery>
export type RecipientPage = Response<typeof recipientPage>
export type CampaignRecipient = RecipientPage['data'][number]
export type RecipientState = (typeof recipientStates)[number]
export type Webhook = Response<typeof webhookView>
export type WebhookSaved = Response<typeof webhookSaved>
export type WebhookCreated = Response<typeof webhookCreated>
export type WebhookInput = Request<typeof webhookCreate>
export type WebhookChange = Request<typeof webhookUpdate>
export type WebhookSecretRotated = Response<typeof webhookSecretRotated>
export type WebhookMessagePage = Response<typeof webhookMessagePage>
export type WebhookMessage = WebhookMessagePage['data'][number]
export type WebhookMessageStatus = WebhookMessage['status']
export type WebhookMessageListQuery = ListQuery<typeof webhookMessageListQuery>
export type WebhookMessageDetail = Response<typeof webhookMessageDetail>
export type WebhookAttempt = WebhookMessageDetail['attempts'][number]
export type WebhookReplay = Request<typeof webhookReplay>
export type WebhookReplayed = Response<typeof webhookReplayed>
