/** Event names the service emits itself; /v1/track refuses them (spec "Internal events"). */
export const contactSubscribedEvent = 'contact.subscribed'
export const contactUnsubscribedEvent = 'contact.unsubscribed'

const reservedPatterns = [/^email\./, /^contact\.(un)?subscribed$/, /^segment\.[^.]+\.(entry|exit)$/]

export function isReservedEventName(name: string): boolean {
  const lower = name.toLowerCase()
  return reservedPatterns.some((pattern) => pattern.test(lower))
}

export function subscriptionEventName(subscribed: boolean): string {
  return subscribed ? contactSubscribedEvent : contactUnsubscribedEvent
}
