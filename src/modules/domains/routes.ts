import { z } from 'zod'
import type { AppContext } from '../../context.js'
import { notFound } from '../../errors.js'
import type { App } from '../../http/app-type.js'
import { projectOf } from '../../http/project.js'
import { createAuditDeps } from './audit/deps.js'
import { domainAuditView } from './audit/schemas.js'
import { auditDomain, verifyDomain } from './check.js'
import { setReturnPath } from './return-path.js'
import {
  currentProject,
  domainCreate,
  domainIdParams,
  domainProjectParams,
  domainView,
  returnPathUpdate,
} from './schemas.js'
import { createDomain, deleteDomain, listDomains } from './service.js'

export function registerDomainRoutes(app: App, ctx: AppContext): void {
  const route = { config: { auth: 'project' as const, role: 'MEMBER' as const } }
  const admin = { config: { auth: 'project' as const, role: 'ADMIN' as const } }
  const tags = ['domains']
  // Verification must see a record the moment it is created, so nothing is cached.
  const deps = createAuditDeps(ctx.config)

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
    async (request) => verifyDomain(ctx.db, ctx.config, deps, projectOf(request), request.params.id),
  )

  // Runs the check now, as /verify does (a GET that updates the domain), and answers with what it found.
  app.get(
    '/domains/:id/audit',
    { ...admin, schema: { tags, params: domainIdParams, response: { 200: domainAuditView } } },
    async (request) => auditDomain(ctx.db, ctx.config, deps, projectOf(request), request.params.id),
  )

  app.put(
    '/domains/:id/return-path',
    { ...admin, schema: { tags, params: domainIdParams, body: returnPathUpdate, response: { 200: domainView } } },
    async (request) => setReturnPath(ctx.db, ctx.config, deps, projectOf(request), request.params.id, request.body),
  )

  app.delete('/domains/:id', { ...admin, schema: { tags, params: domainIdParams } }, async (request, reply) => {
    await deleteDomain(ctx.db, projectOf(request), request.params.id)
    return reply.code(204).send()
  })
}
