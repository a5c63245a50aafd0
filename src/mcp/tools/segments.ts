import { z } from 'zod'
import { defineTool, pageArgs, segment } from '../tool.js'

const segmentId = z.uuid().describe('The segment id (from list_segments)')

export const segmentTools = [
  defineTool({
    name: 'list_segments',
    title: 'List segments',
    description: 'Every segment with its kind (dynamic or static), condition and cached member count.',
    kind: 'read',
    input: {},
    run: (api) => api({ method: 'GET', path: '/segments' }),
  }),
  defineTool({
    name: 'count_segment',
    title: 'Count a segment',
    description: 'Counts the segment’s members now (a dynamic segment is evaluated afresh). Changes no membership.',
    kind: 'read',
    input: { id: segmentId },
    run: (api, { id }) => api({ method: 'POST', path: `/segments/${segment(id)}/refresh` }),
  }),
  defineTool({
    name: 'list_segment_members',
    title: 'List segment members',
    description: 'The contacts in a segment, a page at a time (a dynamic segment is evaluated live).',
    kind: 'read',
    input: {
      id: segmentId,
      ...pageArgs,
    },
    run: (api, { id, ...query }) => api({ method: 'GET', path: `/segments/${segment(id)}/contacts`, query }),
  }),
]
