import { z } from 'zod'
import { domainCreate } from '../../modules/domains/schemas.js'
import { defineTool, segment } from '../tool.js'

export const domainTools = [
  defineTool({
    name: 'list_domains',
    title: 'List sender domains',
    description:
      'The project’s sender domains, each with its verification status and the DNS records (DKIM, SPF, DMARC, ' +
      'return path) to create at the DNS provider.',
    kind: 'read',
    input: {},
    run: (api) => api({ method: 'GET', path: '/domains/project/current' }),
  }),
  defineTool({
    name: 'add_domain',
    title: 'Add a sender domain',
    description: 'Adds a sender domain and answers the DNS records to create before it can be verified.',
    kind: 'write',
    input: { domain: domainCreate.shape.domain },
    run: (api, body) => api({ method: 'POST', path: '/domains', body }),
  }),
  defineTool({
    name: 'verify_domain',
    title: 'Check a domain’s DNS',
    description:
      'Looks up the domain’s DNS records now and answers which are found; a domain whose records are all in place ' +
      'becomes verified. Changes nothing else.',
    kind: 'read',
    input: { id: z.uuid().describe('The domain id (from list_domains)') },
    run: (api, { id }) => api({ method: 'GET', path: `/domains/${segment(id)}/verify` }),
  }),
]
