import { and, eq } from 'drizzle-orm'
import type { Config } from '../../config.js'
import type { Database, Transaction } from '../../db/client.js'
import { campaigns } from '../../db/schema/index.js'
import { AppError } from '../../errors.js'
import { checkContent } from '../templates/service.js'
import { countAudience } from './audience.js'
import { checkAudienceReferences, type StoredAudience, storedAudience } from './audience-input.js'
import { recheckScheduledEdit } from './presend/send-gate.js'
import type { CampaignCreate, CampaignUpdate, CampaignView } from './schemas.js'
import { type CampaignRow, findCampaignRow, getCampaign } from './view.js'

export { listCampaigns } from './list.js'
export { getCampaign } from './view.js'

/** States in which a campaign's content and audience may still change (DESIGN.md §4: the sendable ones). */
const editableStatuses: readonly CampaignRow['status'][] = ['DRAFT', 'SCHEDULED']

async function insertCampaign(tx: Transaction, values: typeof campaigns.$inferInsert): Promise<string> {
  const [row] = await tx.insert(campaigns).values(values).returning({ id: campaigns.id })
  if (!row) throw new Error('campaign insert returned nothing')
  return row.id
}

/** `POST /campaigns`: a DRAFT whose `totalRecipients` is its audience at creation. */
export async function createCampaign(
  db: Database,
  config: Config,
  projectId: string,
  input: CampaignCreate,
): Promise<CampaignView> {
  const audience = storedAudience(input)
  await checkContent(db, config, projectId, input)
  const id = await db.transaction(async (tx) => {
    await checkAudienceReferences(tx, projectId, audience)
    const totalRecipients = await countAudience(tx, projectId, { ...audience, type: input.type })
    return insertCampaign(tx, { ...input, ...audience, projectId, status: 'DRAFT', totalRecipients })
  })
  return getCampaign(db, projectId, id)
}

function audienceChanged(current: CampaignRow, next: StoredAudience & Pick<CampaignRow, 'type'>): boolean {
  return (
    current.audienceType !== next.audienceType ||
    current.segmentId !== next.segmentId ||
    current.type !== next.type ||
    JSON.stringify(current.audienceCondition) !== JSON.stringify(next.audienceCondition)
  )
}

/** What the pre-send check reads: an edit of anything else (name, audience) leaves its verdict as it was. */
const checkedFields = ['subject', 'body', 'from', 'type'] as const

function changesContent(input: CampaignUpdate): boolean {
  return checkedFields.some((field) => input[field] !== undefined)
}

/**
 * `PUT /campaigns/:id`, partial: only a DRAFT or SCHEDULED campaign changes (a 400 otherwise, e.g. while it is
 * SENDING). The row stays locked until commit, so a send or cancel in between waits and then sees the result.
 * A changed audience (type, segment, condition, or a switch to or from TRANSACTIONAL) is counted again. New content
 * of a SCHEDULED campaign passes the pre-send check again (it passed, or an owner overrode it, when scheduled).
 */
export async function updateCampaign(
  db: Database,
  config: Config,
  projectId: string,
  campaignId: string,
  input: CampaignUpdate,
): Promise<CampaignView> {
  await db.transaction(async (tx) => {
    const current = await findCampaignRow(tx, projectId, campaignId, { lock: true })
    if (!editableStatuses.includes(current.status)) {
      throw new AppError(
        'BAD_REQUEST',
        `Only DRAFT or SCHEDULED campaigns can be changed; this one is ${current.status}`,
      )
    }
    if (Object.keys(input).length === 0) return
    const audience = storedAudience({
      audienceType: input.audienceType ?? current.audienceType,
      segmentId: input.segmentId === undefined ? current.segmentId : input.segmentId,
      audienceCondition: input.audienceCondition === undefined ? current.audienceCondition : input.audienceCondition,
    })
    const type = input.type ?? current.type
    await checkContent(tx, config, projectId, input)
    if (current.status === 'SCHEDULED' && changesContent(input)) {
      await recheckScheduledEdit(tx, config, projectId, { ...current, ...input }, current.presendOverride)
    }
    const recount = audienceChanged(current, { ...audience, type })
    if (recount) await checkAudienceReferences(tx, projectId, audience)
    await tx
      .update(campaigns)
      .set({
        ...input,
        ...audience,
        ...(recount ? { totalRecipients: await countAudience(tx, projectId, { ...audience, type }) } : {}),
      })
      .where(and(eq(campaigns.id, campaignId), eq(campaigns.projectId, projectId)))
  })
  return getCampaign(db, projectId, campaignId)
}

/**
 * `DELETE /campaigns/:id`: only an unsent campaign (DRAFT or SCHEDULED) goes. One being sent is a 409, as the
 * spec says for "active executions"; a SENT or CANCELLED one is kept (a 400, as Plunk refuses it) because its
 * emails and statistics still name it.
 */
export async function deleteCampaign(db: Database, projectId: string, campaignId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const current = await findCampaignRow(tx, projectId, campaignId, { lock: true })
    if (current.status === 'SENDING') {
      throw new AppError('CONFLICT', 'The campaign is being sent; cancel it before deleting it')
    }
    if (!editableStatuses.includes(current.status)) {
      throw new AppError(
        'BAD_REQUEST',
        `Only unsent (DRAFT or SCHEDULED) campaigns can be deleted; this one is ${current.status}`,
      )
    }
    await tx.delete(campaigns).where(and(eq(campaigns.id, campaignId), eq(campaigns.projectId, projectId)))
  })
}

/** The audience size a new draft starts with; 0 when the original's segment has been deleted since. */
async function draftRecipients(tx: Transaction, projectId: string, original: CampaignRow): Promise<number> {
  if (original.audienceType === 'SEGMENT' && !original.segmentId) return 0
  return countAudience(tx, projectId, original)
}

/**
 * `POST /campaigns/:id/duplicate`: the content and audience under "<name> (Copy)", as a new DRAFT with no
 * schedule, no results and its audience counted now. The sender was allowed when the original was saved.
 */
export async function duplicateCampaign(db: Database, projectId: string, campaignId: string): Promise<CampaignView> {
  const id = await db.transaction(async (tx) => {
    const original = await findCampaignRow(tx, projectId, campaignId)
    return insertCampaign(tx, {
      projectId,
      name: `${original.name} (Copy)`.slice(0, 255),
      description: original.description,
      subject: original.subject,
      body: original.body,
      from: original.from,
      fromName: original.fromName,
      replyTo: original.replyTo,
      type: original.type,
      audienceType: original.audienceType,
      audienceCondition: original.audienceCondition,
      segmentId: original.segmentId,
      totalRecipients: await draftRecipients(tx, projectId, original),
    })
  })
  return getCampaign(db, projectId, id)
}
