import { z } from 'zod'
import type { AppContext } from '../../context.js'
import { notFound } from '../../errors.js'
import type { App } from '../../http/app-type.js'
import { projectOf } from '../../http/project.js'
import { createResolver } from '../../mail/dns.js'
import { currentProject, domainCreate, domainIdParams, domainProjectParams, domainView } from './schemas.js'
import { createDomain, deleteDomain, listDomains, verifyDomain } from './service.js'

export function registerDomainRoutes(app: App, ctx: AppContext): void {
  const route = { config: { auth: 'project' as const, role: 'MEMBER' as const } }
  const admin = { config: { auth: 'project' as const, role: 'ADMIN' as const } }
  const tags = ['domains']
  // Verification must see a record the moment it is created, so nothing is cached.
  const resolver = createResolver(ctx.config, { cacheTtlMs: 0 })

  app.get(
    '/domains/project/:projectId',
    { ...route, schema: { tags, params: domainProjectParams, response: { 200: z.array(domainView) } } },
    async (request) => {
      const projectId = projectOf(request)
      const requested = request.params.projectId
      if (requested !== currentProject && requested !== projectId) throw notFound('Project')
      return listDomains(ctx.db, ctx.config, projectId)
    },
  )

  app.post(
    '/domains',
    { ...admin, schema: { tags, body: domainCreate, response: { 201: domainView } } },
    async (request, reply) =>
      reply.code(201).send(await createDomain(ctx.db, ctx.config, projectOf(request), request.body)),
  )

  app.get(
    '/domains/:id/verify',
    { ...admin, schema: { tags, params: domainIdParams, response: { 200: domainView } } },
    async (request) => verifyDomain(ctx.db, ctx.config, resolver, projectOf(request), request.params.id),
  )

  app.delete('/domains/:id', { ...admin, schema: { tags, params: domainIdParams } }, async (request, reply) => {
    await deleteDomain(ctx.db, projectOf(request), request.params.id)
    return reply.code(204).send()
  })
}
