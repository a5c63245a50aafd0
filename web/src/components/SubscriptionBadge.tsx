import { Badge } from '@mantine/core'

/** A contact's subscription. Teal 9, not green 9: white on Mantine's green 9 is 4.4:1, under WCAG AA. */
export function SubscriptionBadge({ subscribed }: { subscribed: boolean }) {
  return <Badge color={subscribed ? 'teal.9' : 'gray.7'}>{subscribed ? 'Subscribed' : 'Unsubscribed'}</Badge>
}
