import { z } from 'zod'
import { suppressionReason } from '../../db/schema/index.js'
import { suppressionCreate } from '../../modules/suppressions/schemas.js'
import { cursorArgs, defineTool, segment } from '../tool.js'

export const suppressionTools = [
  defineTool({
    name: 'list_suppressions',
    title: 'List suppressed addresses',
    description:
      'Addresses Mailroom never sends to (after a hard bounce, a complaint, or added by hand), with the reason and ' +
      'the email that caused it; `search` matches part of the address.',
    kind: 'read',
    input: {
      search: z.string().max(254).optional(),
      reason: z.enum(suppressionReason.enumValues).optional(),
      ...cursorArgs,
    },
    run: (api, query) => api({ method: 'GET', path: '/suppressions', query }),
  }),
  defineTool({
    name: 'add_suppression',
    title: 'Suppress an address',
    description: 'Stops all email to an address (for example one known to be dead, or from another provider’s list).',
    kind: 'write',
    idempotent: true,
    input: suppressionCreate.shape,
    run: (api, body) => api({ method: 'POST', path: '/suppressions', body }),
  }),
  defineTool({
    name: 'remove_suppression',
    title: 'Lift a suppression',
    description:
      'Lets Mailroom send to the address again. Lift one only when the address is known to work again: mail to ' +
      'addresses that bounced or complained harms the sender’s reputation.',
    kind: 'delete',
    input: { email: z.string().min(1).max(320) },
    run: (api, { email }) => api({ method: 'DELETE', path: `/suppressions/${segment(email)}` }),
  }),
]
