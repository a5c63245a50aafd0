import { and, eq } from 'drizzle-orm'
import { templates } from '../../../../db/schema/index.js'
import { newTimeOrderedUuid } from '../../../../db/time-ordered-uuid.js'
import { AppError } from '../../../../errors.js'
import { contactLinks, type RenderedForContact, renderForContact } from '../../../../mail/outbound/contact-render.js'
import { addUsage } from '../../../billing/usage.js'
import { enqueueEmails } from '../../../delivery/service.js'
import { sendEmailConfig } from '../../step-config/config.js'
import { failed, type StepContext, type StepOf, type StepResult } from '../step-context.js'

/**
 * SEND_EMAIL: the step's template rendered for the contact, put in the outbox in the transaction that completes
 * the step, so a retried step can never send twice. Marketing mail skips an unsubscribed contact and carries the
 * one-click unsubscribe headers; suppressed addresses are stopped by the outbox, as for any email.
 */
export async function runSendEmail(step: StepOf<'SEND_EMAIL'>, scope: StepContext): Promise<StepResult> {
  const config = sendEmailConfig.parse(step.config)
  const templateId = step.templateId ?? config.templateId
  if (!templateId) return failed('The step has no template')
  const [template] = await scope.tx
    .select()
    .from(templates)
    .where(and(eq(templates.id, templateId), eq(templates.projectId, scope.projectId)))
  if (!template) return failed('The template of the step no longer exists')
  const contact = await scope.contact()
  const toContact = config.recipient.type === 'CONTACT'
  const recipientEmail = config.recipient.type === 'CUSTOM' ? config.recipient.customEmail : contact.email
  const marketing = template.type === 'MARKETING'
  const summary = { recipientType: config.recipient.type, recipientEmail, templateId }
  if (marketing && toContact && !contact.subscribed) {
    return { kind: 'next', output: { ...summary, skipped: true, reason: 'unsubscribed' } }
  }
  // Mail to the contact is its own email: its links name it (an unsubscribe shows on its timeline). A custom
  // recipient's email belongs to no contact, so its links name the execution's contact.
  const id = newTimeOrderedUuid()
  const linkSubject = { projectId: scope.projectId, contactId: contact.id, emailId: toContact ? id : null }
  let rendered: RenderedForContact
  try {
    rendered = await renderForContact({
      subject: template.subject,
      body: template.body,
      contact: { id: contact.id, email: contact.email, data: contact.data },
      links: contactLinks(scope.ctx.config, linkSubject),
      listUnsubscribe: marketing,
    })
  } catch (err) {
    if (err instanceof AppError) return failed(err.message, summary)
    throw err
  }
  // Counted with the step's transaction; over the project's monthly cap the step fails and nothing is queued.
  const refused = await addUsage(scope.tx, 'workflows', new Map([[scope.projectId, 1]]))
  if (refused.size > 0) return failed("The project's monthly workflows email limit is reached", summary)
  const [emailId] = await enqueueEmails(scope.tx, scope.projectId, [
    {
      id,
      from: { email: template.from, name: template.fromName },
      to: { email: recipientEmail },
      replyTo: template.replyTo,
      subject: rendered.subject,
      html: rendered.html,
      headers: rendered.headers,
      // A custom recipient (a team inbox, say) is not the contact: the email is no part of its activity.
      contactId: toContact ? contact.id : null,
      templateId,
      sourceType: 'WORKFLOW',
      workflow: { id: scope.workflow.id, executionId: scope.execution.id },
      marketing,
    },
  ])
  scope.emailQueued()
  return { kind: 'next', output: { ...summary, emailId, sentAt: new Date().toISOString() } }
}
