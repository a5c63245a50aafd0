import type { Config } from '../../config.js'
import { previewUrl, type SubscriptionPurpose } from '../../mail/outbound/subscription-links.js'
import { managePage, resubscribedPage, subscribePage, unsubscribedPage, unsubscribePage } from './pages.js'

/** A campaign test's recipient who is no contact of the project: the links of the test lead here. */
export type PreviewRecipient = { projectId: string; projectName: string; email: string }

type PreviewForm = { subscribed?: 'true' | 'false' | undefined }

const notice = 'This is a preview from a test email: nothing is changed for this address.'

/**
 * The page a recipient would see at this link, with a notice; a POST shows the page that follows and changes
 * nothing, as there is no contact to change.
 */
export function previewPage(
  config: Pick<Config, 'publicUrl' | 'secret'>,
  purpose: SubscriptionPurpose,
  recipient: PreviewRecipient,
  post: PreviewForm | null | undefined,
): string {
  const view = { projectName: recipient.projectName, email: recipient.email, notice }
  const link = (to: SubscriptionPurpose) => previewUrl(config.publicUrl, config.secret, to, recipient)
  switch (purpose) {
    case 'unsubscribe':
      return post
        ? unsubscribedPage({ ...view, resubscribeUrl: link('subscribe') })
        : unsubscribePage({ ...view, actionUrl: link('unsubscribe') })
    case 'subscribe':
      return post ? resubscribedPage(view) : subscribePage({ ...view, actionUrl: link('subscribe') })
    case 'manage':
      // As a subscribed recipient sees it; a POST shows the flipped state without storing it.
      return managePage({ ...view, subscribed: post?.subscribed !== 'false', actionUrl: link('manage') })
  }
}
