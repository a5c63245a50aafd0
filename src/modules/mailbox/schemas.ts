import { z } from 'zod'
import { cursorPageQuery } from '../../http/pagination.js'

export const capturedMessageParams = z.object({ id: z.uuid() })

export const mailboxQuery = cursorPageQuery
export type MailboxQuery = z.infer<typeof mailboxQuery>

export const capturedMessageView = z.object({
  id: z.uuid(),
  emailId: z.uuid().nullable(),
  from: z.string(),
  to: z.array(z.string()),
  subject: z.string(),
  createdAt: z.date(),
})
export type CapturedMessageView = z.infer<typeof capturedMessageView>

export const mailboxPage = z.object({
  data: z.array(capturedMessageView),
  cursor: z.string(),
  hasMore: z.boolean(),
  total: z.number().int(),
})
export type MailboxPage = z.infer<typeof mailboxPage>
