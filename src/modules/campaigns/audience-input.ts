import { and, eq } from 'drizzle-orm'
import { prepareCondition } from '../../conditions/index.js'
import type { ConditionTree } from '../../conditions/tree.js'
import type { Transaction } from '../../db/client.js'
import { segments } from '../../db/schema/index.js'
import { AppError, notFound } from '../../errors.js'
import type { CampaignAudience } from './audience.js'

export type AudienceRequest = Pick<CampaignAudience, 'audienceType'> & {
  audienceCondition?: ConditionTree | null | undefined
  segmentId?: string | null | undefined
}

export type StoredAudience = Pick<CampaignAudience, 'audienceType' | 'audienceCondition' | 'segmentId'>

function missingCompanion(field: 'segmentId' | 'audienceCondition', audienceType: string): AppError {
  const message = `${field} is required when audienceType is ${audienceType}`
  return new AppError('BAD_REQUEST', message, { errors: [{ field, code: 'required', message }] })
}

/**
 * The audience as stored: the companion field its type needs (a 400 when missing, as the spec says) and
 * the other one cleared, so a stale `segmentId` never keeps a segment "in use" by a campaign that ignores it.
 */
export function storedAudience(request: AudienceRequest): StoredAudience {
  switch (request.audienceType) {
    case 'ALL':
      return { audienceType: 'ALL', audienceCondition: null, segmentId: null }
    case 'SEGMENT':
      if (!request.segmentId) throw missingCompanion('segmentId', 'SEGMENT')
      return { audienceType: 'SEGMENT', audienceCondition: null, segmentId: request.segmentId }
    case 'FILTERED':
      if (!request.audienceCondition) throw missingCompanion('audienceCondition', 'FILTERED')
      return { audienceType: 'FILTERED', audienceCondition: request.audienceCondition, segmentId: null }
  }
}

/**
 * What the audience refers to must be the project's: its segment (404, also for a deleted one; the row is
 * key-share locked until commit, so it cannot be deleted under the campaign being saved) and every segment
 * its condition names (the condition engine's 422, with the path under `audienceCondition`).
 */
export async function checkAudienceReferences(
  tx: Transaction,
  projectId: string,
  audience: StoredAudience,
): Promise<void> {
  if (audience.segmentId) {
    const [segment] = await tx
      .select({ id: segments.id })
      .from(segments)
      .where(and(eq(segments.id, audience.segmentId), eq(segments.projectId, projectId)))
      .for('key share')
    if (!segment) throw notFound('Segment')
  }
  if (audience.audienceCondition) {
    await prepareCondition(tx, projectId, audience.audienceCondition, 'audienceCondition')
  }
}
