import type { Config } from '../../../config.js'
import type { Executor } from '../../../db/client.js'
import type { campaigns, templates } from '../../../db/schema/index.js'
import { domainOf } from '../../../mail/address.js'
import { lintContent } from './content-lint.js'
import { finding, type PresendFinding, sortFindings } from './findings.js'
import { fromDomainErrors } from './from-domain.js'

type Content = Pick<typeof campaigns.$inferSelect, 'subject' | 'body' | 'from' | 'type'>
type TemplateContent = Pick<typeof templates.$inferSelect, 'subject' | 'body' | 'from' | 'type'>
type CheckConfig = Pick<Config, 'publicUrl' | 'mailTransport'>

/**
 * A campaign's findings. Every campaign email carries the one-click List-Unsubscribe headers
 * (`campaigns/personalise.ts`); a visible unsubscribe link is required of all but TRANSACTIONAL campaigns, which
 * also reach unsubscribed contacts and so are not marketing.
 */
export async function checkCampaignContent(
  db: Executor,
  config: CheckConfig,
  projectId: string,
  campaign: Content,
): Promise<PresendFinding[]> {
  const lint = lintContent({
    subject: campaign.subject,
    body: campaign.body,
    unsubscribeLink: campaign.type === 'TRANSACTIONAL' ? 'warning' : 'error',
    oneClickBaseUrl: config.publicUrl,
  })
  return sortFindings([...lint, ...(await lintFromDomain(db, config, projectId, campaign.from))])
}

/**
 * A template's findings, with the weight they would have in a campaign made from it; a template itself is never
 * refused for them. Only MARKETING templates carry List-Unsubscribe (`send/content.ts`, the workflow step), so
 * only they need the link.
 */
export async function checkTemplateContent(
  db: Executor,
  config: CheckConfig,
  projectId: string,
  template: TemplateContent,
): Promise<PresendFinding[]> {
  const marketing = template.type === 'MARKETING'
  const lint = lintContent({
    subject: template.subject,
    body: template.body,
    unsubscribeLink: marketing ? 'error' : false,
    oneClickBaseUrl: marketing ? config.publicUrl : undefined,
  })
  return sortFindings([...lint, ...(await lintFromDomain(db, config, projectId, template.from))])
}

/**
 * The sender domain's audit errors as one finding. With the capture transport nothing leaves the machine, and a
 * domain may be used before it is verified (DESIGN.md §3), so there they only warn.
 */
async function lintFromDomain(
  db: Executor,
  config: CheckConfig,
  projectId: string,
  from: string,
): Promise<PresendFinding[]> {
  const domain = domainOf(from)
  const errors = await fromDomainErrors(db, projectId, domain)
  if (errors.length === 0) return []
  const capture = config.mailTransport === 'capture'
  return [
    finding(
      'from_domain_not_ready',
      capture ? 'warning' : 'error',
      'from',
      `Receivers will not trust mail from ${domain}: ${errors.map((error) => error.reason).join(' ')}` +
        (capture ? ' (The capture transport keeps mail in the Mailbox, so this does not block here.)' : ''),
      errors.map((error) => error.code),
    ),
  ]
}
