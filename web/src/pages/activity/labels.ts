/** What each activity type is called on screen: a word or two a person would use, not the API's type. */
const labels: Record<string, string> = {
  'event.triggered': 'Tracked event',
  'email.sent': 'Email sent',
  'email.delivered': 'Delivered',
  'email.received': 'Email received',
  'email.opened': 'Opened',
  'email.clicked': 'Clicked',
  'email.machine_opened': 'Machine open',
  'email.machine_clicked': 'Machine click',
  'email.bounced': 'Bounced',
  'email.complaint': 'Spam complaint',
  'contact.subscribed': 'Subscribed',
  'contact.unsubscribed': 'Unsubscribed',
  'segment.entry': 'Joined segment',
  'segment.exit': 'Left segment',
  'workflow.started': 'Workflow started',
  'workflow.completed': 'Workflow finished',
  'workflow.failed': 'Workflow failed',
}

/** A type this list does not know yet (a newer server's) reads as its words: `email.deferred` → "Email deferred". */
export function activityLabel(type: string): string {
  const known = labels[type]
  if (known) return known
  const words = type.replace(/[._]+/g, ' ').trim()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

const failures = new Set(['email.bounced', 'email.complaint', 'workflow.failed'])

/** Dark shades only: the badges' white text on them passes the contrast check. */
export function activityColor(type: string): string {
  if (failures.has(type)) return 'red.9'
  if (type.startsWith('email.')) return 'indigo.8'
  if (type.startsWith('workflow.')) return 'teal.9'
  if (type.startsWith('segment.')) return 'grape.9'
  if (type.startsWith('contact.')) return 'gray.7'
  return 'violet.9'
}
