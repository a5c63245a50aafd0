import { z } from 'zod'
import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { projectIdParams, userOf } from '../../http/project.js'
import { cancelSubscriptionQuietly } from '../billing/stripe-sessions.js'
import { deleteProject, resetProject } from './lifecycle.js'
import { projectConfirmation, projectCreate, projectDone, projectUpdate, projectView } from './schemas.js'
import { createProject, listUserProjects, regenerateProjectKeys, updateProject } from './service.js'

export function registerProjectRoutes(app: App, ctx: AppContext): void {
  const route = { config: { auth: 'user' as const } }
  const admin = { config: { auth: 'user' as const, projectParam: 'id', role: 'ADMIN' as const } }
  const owner = { config: { auth: 'user' as const, projectParam: 'id', role: 'OWNER' as const } }
  const tags = ['projects']

  app.get(
    '/users/@me/projects',
    { ...route, schema: { tags, response: { 200: z.array(projectView) } } },
    async (request) => listUserProjects(ctx.db, ctx.config.secret, userOf(request)),
  )

  app.post(
    '/users/@me/projects',
    { ...route, schema: { tags, body: projectCreate, response: { 201: projectView } } },
    async (request, reply) =>
      reply.code(201).send(await createProject(ctx.db, ctx.config.secret, userOf(request), request.body)),
  )

  app.patch(
    '/users/@me/projects/:id',
    { ...admin, schema: { tags, params: projectIdParams, body: projectUpdate, response: { 200: projectView } } },
    async (request) => updateProject(ctx.db, ctx.config.secret, userOf(request), request.params.id, request.body),
  )

  app.post(
    '/users/@me/projects/:id/regenerate-keys',
    { ...admin, schema: { tags, params: projectIdParams, response: { 200: projectView } } },
    async (request) => regenerateProjectKeys(ctx.db, ctx.config.secret, userOf(request), request.params.id),
  )

  app.post(
    '/users/@me/projects/:id/reset',
    {
      ...owner,
      schema: { tags, params: projectIdParams, body: projectConfirmation, response: { 200: projectDone } },
    },
    async (request) => {
      await resetProject(ctx, userOf(request), request.params.id, request.body.confirm)
      return { success: true as const, message: 'Project reset successfully' }
    },
  )

  app.delete(
    '/users/@me/projects/:id',
    {
      ...owner,
      schema: { tags, params: projectIdParams, body: projectConfirmation, response: { 200: projectDone } },
    },
    async (request) => {
      const deleted = await deleteProject(ctx, userOf(request), request.params.id, request.body.confirm)
      await cancelSubscriptionQuietly(ctx, deleted.stripeSubscriptionId)
      return { success: true as const, message: 'Project deleted successfully' }
    },
  )
}
