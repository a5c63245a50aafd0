import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { AppContext } from '../../context.js'
import { wakeEventDispatcher } from '../../events/wake.js'
import type { App } from '../../http/app-type.js'
import { type SubscriptionPurpose, subscriptionUrl } from '../../mail/outbound/subscription-links.js'
import {
  invalidLinkPage,
  managePage,
  resubscribedPage,
  subscribePage,
  unsubscribedPage,
  unsubscribePage,
} from './pages.js'
import { previewPage } from './preview-pages.js'
import { findLinkedContact, findPreviewRecipient, type LinkedContact, setSubscriptionFromLink } from './service.js'

const tokenParams = z.object({ token: z.string().min(1).max(512) })
const form = z.object({ subscribed: z.enum(['true', 'false']).optional() }).nullish()
type Form = z.infer<typeof form>

/**
 * The pages behind `unsubscribeUrl`, `subscribeUrl` and `manageUrl`. A GET only shows a page (mail scanners
 * follow links); a POST acts. A POST to the unsubscribe URL is also RFC 8058's one-click unsubscribe, so it
 * acts at once whatever its body.
 */
export async function registerSubscriptionRoutes(app: App, ctx: AppContext): Promise<void> {
  const link = (purpose: SubscriptionPurpose, contact: LinkedContact) =>
    subscriptionUrl(ctx.config.publicUrl, ctx.config.secret, purpose, contact)
  const setSubscription = async (contact: LinkedContact, subscribed: boolean) => {
    await setSubscriptionFromLink(ctx.db, contact, subscribed)
    // A change published `contact.(un)subscribed`: the bus hands it out now rather than at its next poll.
    wakeEventDispatcher(ctx.pool)
  }

  const pages: Record<SubscriptionPurpose, (contact: LinkedContact, post: Form | null) => Promise<string>> = {
    async unsubscribe(contact, post) {
      const view = { projectName: contact.projectName, email: contact.email }
      if (!post) return unsubscribePage({ ...view, actionUrl: link('unsubscribe', contact) })
      await setSubscription(contact, false)
      return unsubscribedPage({ ...view, resubscribeUrl: link('subscribe', contact) })
    },
    async subscribe(contact, post) {
      const view = { projectName: contact.projectName, email: contact.email }
      if (!post) return subscribePage({ ...view, actionUrl: link('subscribe', contact) })
      await setSubscription(contact, true)
      return resubscribedPage(view)
    },
    async manage(contact, post) {
      let subscribed = contact.subscribed
      if (post?.subscribed) {
        subscribed = post.subscribed === 'true'
        await setSubscription(contact, subscribed)
      }
      const view = { projectName: contact.projectName, email: contact.email }
      return managePage({ ...view, subscribed, actionUrl: link('manage', contact) })
    },
  }

  await app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<ZodTypeProvider>()
    // Browsers and one-click unsubscribe post forms; parsed only on these routes.
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    )
    const config = { auth: 'none' as const }
    for (const purpose of ['unsubscribe', 'subscribe', 'manage'] as const) {
      const respond = async (token: string, post: Form | null) => {
        const contact = await findLinkedContact(ctx.db, ctx.config.secret, purpose, token)
        if (contact) return { status: 200, body: await pages[purpose](contact, post) }
        // The links of a campaign's test email to a member who is no contact: the same pages, changing nothing.
        const preview = await findPreviewRecipient(ctx.db, ctx.config.secret, purpose, token)
        if (preview) return { status: 200, body: previewPage(ctx.config, purpose, preview, post) }
        return { status: 404, body: invalidLinkPage() }
      }
      scope.get(
        `/${purpose}/:token`,
        { config, schema: { hide: true, params: tokenParams } },
        async (request, reply) => {
          const page = await respond(request.params.token, null)
          return reply.code(page.status).type('text/html; charset=utf-8').send(page.body)
        },
      )
      scope.post(
        `/${purpose}/:token`,
        { config, schema: { hide: true, params: tokenParams, body: form } },
        async (request, reply) => {
          const page = await respond(request.params.token, request.body ?? {})
          return reply.code(page.status).type('text/html; charset=utf-8').send(page.body)
        },
      )
    }
  })
}
