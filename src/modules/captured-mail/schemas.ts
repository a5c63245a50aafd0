import { z } from 'zod'
import { accountEmailKind } from '../../db/schema/index.js'
import { cursorPage, cursorPageQuery } from '../../http/pagination.js'

export const capturedMessageParams = z.object({ id: z.uuid() })

export const mailboxQuery = cursorPageQuery
export type MailboxQuery = z.infer<typeof mailboxQuery>

/**
 * `source`: `PROJECT` for the project's own mail, `ACCOUNT` for one of Mailroom's own account emails shown in this
 * mailbox (a project's invitations to its admins; a user's verification and reset emails to that user), whose
 * `kind` says which (null for project mail).
 */
export const capturedMessageView = z.object({
  id: z.uuid(),
  source: z.enum(['PROJECT', 'ACCOUNT']),
  kind: z.enum(accountEmailKind.enumValues).nullable(),
  emailId: z.uuid().nullable(),
  from: z.string(),
  to: z.array(z.string()),
  subject: z.string(),
  createdAt: z.date(),
})
export type CapturedMessageView = z.infer<typeof capturedMessageView>

export const mailboxPage = cursorPage(capturedMessageView)
export type MailboxPage = z.infer<typeof mailboxPage>
