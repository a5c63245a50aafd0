import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { projectIdParams, projectOf, userOf } from '../../http/project.js'
import { wakeOutbox } from '../delivery/service.js'
import { securityView } from './schemas.js'
import { getMemberProjectSecurity, getProjectSecurity, resumeProjectSending } from './service.js'

export function registerReputationRoutes(app: App, ctx: AppContext): void {
  const tags = ['security']
  const schema = { tags, params: projectIdParams, response: { 200: securityView } }

  const member = { auth: 'project' as const, role: 'MEMBER' as const, projectParam: 'id' }
  app.get('/projects/:id/security', { config: member, schema }, async (request) =>
    getProjectSecurity(ctx.db, ctx.config, projectOf(request)),
  )

  const user = { auth: 'user' as const, projectParam: 'id' }
  app.get('/users/@me/projects/:id/security', { config: { ...user, role: 'MEMBER' }, schema }, async (request) =>
    getMemberProjectSecurity(ctx.db, ctx.config, userOf(request), request.params.id),
  )

  const resume = { ...user, role: 'ADMIN' as const }
  app.post('/users/@me/projects/:id/security/resume', { config: resume, schema }, async (request) => {
    const userId = userOf(request)
    // The emails held while paused are due already: wake the outbox once the lift has committed.
    if (await resumeProjectSending(ctx.db, userId, request.params.id)) wakeOutbox(ctx.pool, 'all')
    return getMemberProjectSecurity(ctx.db, ctx.config, userId, request.params.id)
  })
}
