/**
 * Stripe's subscription statuses under which a project counts as subscribed: a new checkout is refused. This file
 * imports nothing, so the dashboard decides when to offer a checkout from the same list.
 */
export const activeSubscriptionStatuses: readonly string[] = ['active', 'trialing', 'past_due']
