import type { BusEvent, EventSubscriber } from '../../events/bus.js'
import { isSegmentEventName } from './events.js'
import { reevaluateContacts } from './membership.js'

/** The contacts each project's events are about; segment events themselves change no condition input. */
function changedContacts(events: readonly BusEvent[]): Map<string, string[]> {
  const byProject = new Map<string, Set<string>>()
  for (const event of events) {
    if (!event.contactId || isSegmentEventName(event.name)) continue
    const contacts = byProject.get(event.projectId) ?? new Set()
    contacts.add(event.contactId)
    byProject.set(event.projectId, contacts)
  }
  return new Map([...byProject].map(([projectId, contacts]) => [projectId, [...contacts]]))
}

/**
 * Re-evaluates the contacts a batch of committed events is about (a tracked or email event, a subscription
 * change) against the tracked DYNAMIC segments of their projects, in the dispatcher's transaction: entry and
 * exit events commit with the bus position, a dispatch cycle after the change instead of at the next sweep.
 */
export const segmentSubscriber: EventSubscriber = async (events, { ctx, tx }) => {
  await reevaluateContacts(tx, ctx.log, changedContacts(events))
}
