import type { Config } from '../../../config.js'
import type { Executor } from '../../../db/client.js'
import type { campaigns, PresendOverride } from '../../../db/schema/index.js'
import { AppError } from '../../../errors.js'
import type { ProjectActor } from '../../../http/project.js'
import { checkCampaignContent } from './check.js'
import { errorsOf, type PresendFinding } from './findings.js'

type CampaignContent = Pick<typeof campaigns.$inferSelect, 'subject' | 'body' | 'from' | 'type'>

/** What the caller of a send or schedule asked for: `force` sends despite errors, an owner's choice alone. */
export type SendRequest = { force: boolean; actor: ProjectActor }

/**
 * `force` is an owner's (a session owner, or the secret key, which acts as the owner): refused to anyone else
 * before anything is read, whatever the campaign's findings, so a member learns at once that it is not theirs.
 */
export function assertMayForce(request: SendRequest): void {
  if (request.force && request.actor.role !== 'OWNER') {
    throw new AppError('FORBIDDEN', 'Only a project owner can send a campaign despite its pre-send errors', {
      details: { requiredRole: 'OWNER', role: request.actor.role },
      suggestion: 'Fix what the pre-send check found (GET /campaigns/:id/check), or ask an owner to send it',
    })
  }
}

/** 422 with every error as a field error (its code and field) and every finding, warnings too, in `details`. */
function presendFailed(findings: readonly PresendFinding[], errors: readonly PresendFinding[], suggestion: string) {
  return new AppError(
    'PRESEND_CHECK_FAILED',
    `The pre-send check found ${errors.length === 1 ? 'an error' : `${errors.length} errors`}: ` +
      errors.map((error) => error.code).join(', '),
    {
      errors: errors.map((error) => ({ field: error.field, message: error.message, code: error.code })),
      details: { findings },
      suggestion,
    },
  )
}

/**
 * Runs the pre-send check on a campaign about to be sent or scheduled (locked by the caller, so what is checked
 * is what goes). Errors refuse it with 422, unless an owner forced it: the override is then returned, to be kept
 * on the campaign. Warnings never block. Null when nothing was overridden.
 */
export async function gateCampaignSend(
  tx: Executor,
  config: Pick<Config, 'publicUrl' | 'mailTransport'>,
  projectId: string,
  campaign: CampaignContent,
  request: SendRequest,
): Promise<PresendOverride | null> {
  const findings = await checkCampaignContent(tx, config, projectId, campaign)
  const errors = errorsOf(findings)
  if (errors.length === 0) return null
  if (!request.force) {
    throw presendFailed(
      findings,
      errors,
      request.actor.role === 'OWNER'
        ? 'Fix these, or send anyway with {"force": true} in the body'
        : 'Fix these, or ask a project owner to send it anyway',
    )
  }
  return { userId: request.actor.userId, at: new Date().toISOString(), codes: errors.map((error) => error.code) }
}

/**
 * An edit of a SCHEDULED campaign's content is checked again: it may keep the errors an owner accepted when
 * scheduling it, but not add others, or the check could be passed by scheduling first and editing after.
 */
export async function recheckScheduledEdit(
  tx: Executor,
  config: Pick<Config, 'publicUrl' | 'mailTransport'>,
  projectId: string,
  campaign: CampaignContent,
  override: PresendOverride | null,
): Promise<void> {
  const findings = await checkCampaignContent(tx, config, projectId, campaign)
  const accepted = new Set(override?.codes ?? [])
  const errors = errorsOf(findings).filter((error) => !accepted.has(error.code))
  if (errors.length === 0) return
  throw presendFailed(
    findings,
    errors,
    'The campaign is scheduled: fix these, or cancel the schedule, edit it and send or schedule it again',
  )
}
