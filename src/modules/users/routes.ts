import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { userOf } from '../../http/project.js'
import { userView } from './schemas.js'
import { getUser } from './service.js'

export function registerUserRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/users/@me',
    { config: { auth: 'user' }, schema: { tags: ['users'], response: { 200: userView } } },
    async (request) => getUser(ctx.db, userOf(request)),
  )
}
