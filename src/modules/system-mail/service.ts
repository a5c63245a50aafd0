import type { AppContext } from '../../context.js'
import type { Executor } from '../../db/client.js'
import { accountEmails } from '../../db/schema/index.js'
import { enqueueEmails, wakeOutbox } from '../delivery/service.js'
import type { SystemMessage } from './messages.js'
import { systemProjectId } from './system-project.js'

/** Whom an account email concerns: a user's own (verification, reset, a notice to an owner), or a project's invitation. */
export type AccountEmailAbout =
  | { kind: 'VERIFY_EMAIL' | 'RESET_PASSWORD' | 'WEBHOOK_DISABLED'; userId: string }
  | { kind: 'INVITATION'; projectId: string }

/**
 * Queues an account email from the system sender inside the caller's transaction, so the token it carries and
 * the email commit together, with whom it concerns (the capture mailbox shows it to them). Call `wakeSystemMail`
 * once that transaction has committed.
 */
export async function queueSystemEmail(
  ctx: Pick<AppContext, 'config' | 'log' | 'db'>,
  tx: Executor,
  to: string,
  message: SystemMessage,
  about: AccountEmailAbout,
): Promise<void> {
  const projectId = await systemProjectId(ctx.db, ctx.config.secret)
  const [emailId] = await enqueueEmails(tx, projectId, [
    {
      from: ctx.config.systemEmailFrom,
      to: { email: to },
      subject: message.subject,
      html: message.html,
      sourceType: 'TRANSACTIONAL',
      marketing: false,
    },
  ])
  if (!emailId) throw new Error('account email insert returned no id')
  await tx.insert(accountEmails).values({ emailId, ...about })
  // In capture mode nothing leaves the machine; the dashboard's mailboxes show the email to whom it concerns, and
  // the log is how the operator of a one-machine install (who may be locked out of every project) finds the link. Real transports never log it: the link is a credential.
  if (ctx.config.mailTransport === 'capture') {
    ctx.log.info(
      { to, subject: message.subject, link: message.link },
      'account email captured (MAIL_TRANSPORT=capture)',
    )
  }
}

export function wakeSystemMail(ctx: Pick<AppContext, 'pool'>): void {
  wakeOutbox(ctx.pool)
}
