import { z } from 'zod'
import { templateCreate, templateType, templateUpdate } from '../../modules/templates/schemas.js'
import { defineTool, pageArgs, segment } from '../tool.js'

const templateId = z.uuid().describe('The template id (from list_templates)')

export const templateTools = [
  defineTool({
    name: 'list_templates',
    title: 'List templates',
    description: 'Email templates newest first, with subject, body and sender; `search` matches the name.',
    kind: 'read',
    input: {
      search: z.string().max(200).optional(),
      type: templateType.optional(),
      ...pageArgs,
    },
    run: (api, query) => api({ method: 'GET', path: '/templates', query }),
  }),
  defineTool({
    name: 'get_template',
    title: 'Get a template',
    description: 'One template: name, type, subject, HTML body (Liquid), sender and reply-to.',
    kind: 'read',
    input: { id: templateId },
    run: (api, { id }) => api({ method: 'GET', path: `/templates/${segment(id)}` }),
  }),
  defineTool({
    name: 'create_template',
    title: 'Create a template',
    description:
      'Creates a template. `body` is HTML with Liquid variables ({{ data.firstName }}, {{ unsubscribeUrl }}); ' +
      '`from` must be on a verified sender domain to send. MARKETING templates go only to subscribed contacts.',
    kind: 'write',
    input: templateCreate.shape,
    run: (api, body) => api({ method: 'POST', path: '/templates', body }),
  }),
  defineTool({
    name: 'update_template',
    title: 'Update a template',
    description: 'Changes the given fields of a template; campaigns and workflow steps using it send the new version.',
    kind: 'write',
    idempotent: true,
    input: { id: templateId, ...templateUpdate.shape },
    run: (api, { id, ...body }) => api({ method: 'PATCH', path: `/templates/${segment(id)}`, body }),
  }),
  defineTool({
    name: 'preview_template',
    title: 'Preview a template',
    description:
      'Renders a stored template as one contact would receive it (subject, HTML and the plain-text part), or ' +
      'with empty variables when no contact is given. Sends nothing.',
    kind: 'read',
    input: { id: templateId, contactId: z.uuid().optional().describe('Render with this contact’s data') },
    run: async (api, { id, contactId }) => {
      const template = await api({ method: 'GET', path: `/templates/${segment(id)}` })
      if (template.status !== 200) return template
      const { subject, body } = template.body as { subject: string; body: string }
      return api({ method: 'POST', path: '/templates/preview', body: { subject, body, contactId } })
    },
  }),
  defineTool({
    name: 'delete_template',
    title: 'Delete a template',
    description: 'Deletes a template; refused while a workflow step sends it.',
    kind: 'delete',
    input: { id: templateId },
    run: (api, { id }) => api({ method: 'DELETE', path: `/templates/${segment(id)}` }),
  }),
]
