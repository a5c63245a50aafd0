import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { userView } from './schemas.js'
import { getUser } from './service.js'

export function registerUserRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/users/@me',
    { config: { auth: 'user' }, schema: { tags: ['users'], response: { 200: userView } } },
    async (request) => getUser(ctx.db, sessionUser(request.userId)),
  )
}

/** Routes with `auth: 'user'` only run with a session, so a missing id is a wiring bug, not a client error. */
export function sessionUser(userId: string | null): string {
  if (!userId) throw new Error('route declared auth "user" but ran without a session')
  return userId
}
