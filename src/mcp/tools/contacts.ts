import { z } from 'zod'
import { contactData, contactEmail } from '../../modules/contacts/schemas.js'
import type { ApiAnswer, MailroomApi } from '../api.js'
import { cursorArgs, defineTool, segment } from '../tool.js'

const contactRef = z
  .union([z.uuid(), contactEmail])
  .describe("The contact's id, or its email address (matched exactly, in this project)")

/** The id a contact reference names, or the answer that says why there is none. */
async function resolveContact(api: MailroomApi, contact: string): Promise<string | ApiAnswer> {
  if (z.uuid().safeParse(contact).success) return contact
  const answer = await api({ method: 'POST', path: '/contacts/lookup', body: { emails: [contact] } })
  if (answer.status !== 200) return answer
  const [found] = (answer.body as { found: { id: string }[] }).found
  if (found) return found.id
  return { status: 404, body: { success: false, error: { code: 'NOT_FOUND', message: `No contact ${contact}` } } }
}

async function withContact(
  api: MailroomApi,
  contact: string,
  then: (id: string) => Promise<ApiAnswer>,
): Promise<ApiAnswer> {
  const id = await resolveContact(api, contact)
  return typeof id === 'string' ? then(id) : id
}

export const contactTools = [
  defineTool({
    name: 'find_contact',
    title: 'Find a contact',
    description: 'A contact by id or exact email address: its subscription, snooze, custom data and dates.',
    kind: 'read',
    input: { contact: contactRef },
    run: (api, { contact }) =>
      withContact(api, contact, (id) => api({ method: 'GET', path: `/contacts/${segment(id)}` })),
  }),
  defineTool({
    name: 'list_contacts',
    title: 'List contacts',
    description: 'Contacts newest first, 20 a page (at most 100); `search` matches part of the email address.',
    kind: 'read',
    input: {
      search: z.string().max(254).optional().describe('Part of the email address, case-insensitive'),
      subscribed: z.boolean().optional().describe('Only subscribed (true) or unsubscribed (false) contacts'),
      ...cursorArgs,
    },
    run: (api, query) => api({ method: 'GET', path: '/contacts', query }),
  }),
  defineTool({
    name: 'upsert_contact',
    title: 'Create or update a contact',
    description:
      'Creates the contact, or updates the one with this email: `data` keys are merged into its custom data ' +
      '(a null value removes a key), `subscribed` changes its subscription (publishing contact.subscribed or ' +
      'contact.unsubscribed, which may start workflows).',
    kind: 'write',
    idempotent: true,
    input: {
      email: contactEmail,
      subscribed: z.boolean().optional(),
      data: contactData.optional().describe('Custom fields, e.g. {"firstName": "Ada", "plan": "pro"}'),
    },
    run: (api, body) => api({ method: 'POST', path: '/contacts', body }),
  }),
  defineTool({
    name: 'set_contact_subscription',
    title: 'Subscribe or unsubscribe a contact',
    description:
      'Subscribes (true) or unsubscribes (false) a contact from marketing email; a change publishes ' +
      'contact.subscribed or contact.unsubscribed, which may start workflows. Transactional email still reaches it.',
    kind: 'write',
    idempotent: true,
    input: { contact: contactRef, subscribed: z.boolean() },
    run: (api, { contact, subscribed }) =>
      withContact(api, contact, (id) =>
        api({ method: 'PATCH', path: `/contacts/${segment(id)}`, body: { subscribed } }),
      ),
  }),
  defineTool({
    name: 'delete_contact',
    title: 'Delete a contact',
    description:
      'Deletes a contact with its events, segment memberships and workflow executions; its sent emails stay in ' +
      'the history.',
    kind: 'delete',
    input: { contact: contactRef },
    run: (api, { contact }) =>
      withContact(api, contact, (id) => api({ method: 'DELETE', path: `/contacts/${segment(id)}` })),
  }),
]
