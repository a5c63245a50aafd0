import { type QueryKey, queryOptions } from '@tanstack/react-query'
import { api, query, request } from './client'
import { projectScope } from './keys'
import type { MailboxPage } from './types'

const pageSize = 25

/** One mailbox the page can show: its pages of messages, and one message's raw bytes, read as the caller needs. */
function mailboxOf(key: QueryKey, path: string, projectId?: string) {
  const list = (cursor?: string) => api<MailboxPage>(`${path}${query({ limit: pageSize, cursor })}`, { projectId })
  return {
    key,
    page: (cursor: string | undefined) => queryOptions({ queryKey: [...key, cursor], queryFn: () => list(cursor) }),
    /** `read` turns the bytes into what the page shows (parsing is the page's, not the data layer's). */
    message: <Shown>(id: string, read: (raw: ArrayBuffer) => Promise<Shown>) =>
      queryOptions({
        queryKey: [...key, 'message', id],
        queryFn: async () => read(await (await request(`${path}/${id}/raw`, { projectId })).arrayBuffer()),
      }),
    list,
  }
}

export type Mailbox = ReturnType<typeof mailboxOf>

/** The project's capture mailbox (its own mail, and its invitations for admins). */
export const projectMailbox = (projectId: string) =>
  mailboxOf([...projectScope(projectId), 'mailbox'], '/mailbox', projectId)

/** The signed-in user's own account emails (verification, password reset): no project, verified or not. */
export const accountMailbox = mailboxOf(['account-mailbox'], '/users/@me/mailbox')

/** The newest verification email the user was sent, while the capture transport keeps them. */
export const capturedVerificationQuery = queryOptions({
  queryKey: [...accountMailbox.key, 'first-page'],
  queryFn: () => accountMailbox.list(),
  select: (page) => page.data.find((message) => message.kind === 'VERIFY_EMAIL'),
})
