import { and, eq } from 'drizzle-orm'
import type { AppContext } from '../../context.js'
import type { Executor } from '../../db/client.js'
import { memberships, projects, users } from '../../db/schema/index.js'
import { webhookDisabledMessage } from '../system-mail/messages.js'
import { queueSystemEmail } from '../system-mail/service.js'

/**
 * Mails every owner of the project that one of its endpoints was disabled, from the system sender, in the
 * transaction that disabled it. Call `wakeSystemMail` once it has committed.
 */
export async function noticeOwnersOfDisabledWebhook(
  ctx: Pick<AppContext, 'config' | 'log' | 'db'>,
  tx: Executor,
  endpoint: { projectId: string; url: string; failingSince: Date },
): Promise<number> {
  const owners = await tx
    .select({ userId: users.id, email: users.email, projectName: projects.name })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .innerJoin(projects, eq(projects.id, memberships.projectId))
    .where(and(eq(memberships.projectId, endpoint.projectId), eq(memberships.role, 'OWNER')))
  const link = `${ctx.config.publicUrl}/app/webhooks`
  for (const owner of owners) {
    const message = webhookDisabledMessage(link, owner.projectName, endpoint.url, endpoint.failingSince)
    await queueSystemEmail(ctx, tx, owner.email, message, { kind: 'WEBHOOK_DISABLED', userId: owner.userId })
  }
  return owners.length
}
