import { Badge, Text } from '@mantine/core'
import { activeSubscriptionStatuses } from '@server/modules/billing/subscription-statuses.js'
import type { BillingConsumption } from '../../api/types'

type Subscription = BillingConsumption['subscription']

/** Stripe's statuses in words; colours with at least 4.5:1 contrast for the badge text. */
const statusBadges: Record<string, { label: string; color: string }> = {
  active: { label: 'Active', color: 'teal.9' },
  trialing: { label: 'Trial', color: 'teal.9' },
  past_due: { label: 'Past due', color: 'yellow.4' },
  unpaid: { label: 'Unpaid', color: 'red.9' },
  incomplete: { label: 'Incomplete', color: 'yellow.4' },
  incomplete_expired: { label: 'Expired', color: 'gray.7' },
  paused: { label: 'Paused', color: 'gray.7' },
  canceled: { label: 'Canceled', color: 'gray.7' },
}

/** Whether the project can subscribe (again): no subscription, or one that is over. */
export function canSubscribe(subscription: Subscription | undefined): boolean {
  return !activeSubscriptionStatuses.includes(subscription?.status ?? '')
}

/** The subscription's status as the billing webhooks last reported it, and whether a failed payment holds sending. */
export function SubscriptionStatus({ subscription }: { subscription: Subscription | undefined }) {
  const status = subscription?.status
  const badge = status ? (statusBadges[status] ?? { label: status, color: 'gray.7' }) : undefined
  return (
    <Text size="sm" mb="sm" component="div">
      Status:{' '}
      {badge ? (
        <Badge color={badge.color} autoContrast>
          {badge.label}
        </Badge>
      ) : (
        'no subscription'
      )}
      {subscription?.paymentPaused &&
        ' — sending is paused until the unpaid invoice is paid; mail queued meanwhile goes out then.'}
    </Text>
  )
}
