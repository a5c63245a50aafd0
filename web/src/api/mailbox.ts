import { queryOptions } from '@tanstack/react-query'
import { api, query, request } from './client'
import type { MailboxPage } from './types'

const pageSize = 25

/** The project's capture mailbox (its own mail, and its invitations for admins). */
export const mailboxKey = (projectId: string) => ['project', projectId, 'mailbox']
export const listMailbox = (projectId: string, cursor?: string) =>
  api<MailboxPage>(`/mailbox${query({ limit: pageSize, cursor })}`, { projectId })
export const fetchMailboxMessage = (projectId: string, id: string) => request(`/mailbox/${id}/raw`, { projectId })

/** The signed-in user's own account emails (verification, password reset): no project, verified or not. */
export const accountMailboxKey = ['account-mailbox']
export const listAccountMailbox = (cursor?: string) =>
  api<MailboxPage>(`/users/@me/mailbox${query({ limit: pageSize, cursor })}`)
export const fetchAccountMessage = (id: string) => request(`/users/@me/mailbox/${id}/raw`)

/** The newest verification email the user was sent, while the capture transport keeps them. */
export const capturedVerificationQuery = queryOptions({
  queryKey: [...accountMailboxKey, 'first-page'],
  queryFn: () => listAccountMailbox(),
  select: (page) => page.data.find((message) => message.kind === 'VERIFY_EMAIL'),
})
