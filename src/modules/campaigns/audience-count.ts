import type { Database } from '../../db/client.js'
import { countAudience } from './audience.js'
import { checkAudienceReferences, storedAudience } from './audience-input.js'
import type { AudienceCount, AudienceCountBody } from './schemas.js'

/**
 * `POST /campaigns/audience/count`: how many contacts an audience would reach now, by the rules a campaign's
 * `totalRecipients` is counted with (subscribed only unless TRANSACTIONAL, never a suppressed address), with the
 * same 400/404/422 answers as saving that audience on a campaign.
 */
export async function countCampaignAudience(
  db: Database,
  projectId: string,
  input: AudienceCountBody,
): Promise<AudienceCount> {
  const audience = storedAudience(input)
  return db.transaction(async (tx) => {
    await checkAudienceReferences(tx, projectId, audience)
    return { total: await countAudience(tx, projectId, { ...audience, type: input.type }) }
  })
}
