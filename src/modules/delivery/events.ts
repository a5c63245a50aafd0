import type { EventInput } from '../../events/bus.js'
import { emailEvent } from '../feedback/email-events.js'
import type { SentRow } from './sql.js'

export function emailSentEvent(email: SentRow): EventInput {
  return emailEvent(email, 'email.sent', { sentAt: email.sentAt.toISOString() })
}
