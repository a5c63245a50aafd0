import type { Config } from '../../../config.js'
import type { Executor } from '../../../db/client.js'
import { getTemplate } from '../../templates/service.js'
import { findCampaignRow } from '../view.js'
import { checkCampaignContent, checkTemplateContent } from './check.js'
import { errorsOf, type PresendFinding } from './findings.js'
import type { CampaignCheck, TemplateCheck } from './schemas.js'

type CheckConfig = Pick<Config, 'publicUrl' | 'mailTransport'>

function counted(findings: PresendFinding[]) {
  const errors = errorsOf(findings).length
  return { findings, errors, warnings: findings.length - errors }
}

/** What a send of the project's campaign would be told now, and how its last send got past errors, if it did. */
export async function getCampaignCheck(
  db: Executor,
  config: CheckConfig,
  projectId: string,
  campaignId: string,
): Promise<CampaignCheck> {
  const campaign = await findCampaignRow(db, projectId, campaignId)
  const result = counted(await checkCampaignContent(db, config, projectId, campaign))
  return { success: true, data: { ...result, blocked: result.errors > 0, override: campaign.presendOverride } }
}

/** The project's template as a campaign made from it would be checked (the editor shows these after a save). */
export async function getTemplateCheck(
  db: Executor,
  config: CheckConfig,
  projectId: string,
  templateId: string,
): Promise<TemplateCheck> {
  const template = await getTemplate(db, projectId, templateId)
  return counted(await checkTemplateContent(db, config, projectId, template))
}
