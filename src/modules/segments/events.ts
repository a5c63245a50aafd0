/**
 * Plunk's slug of a segment name (plunk-compat §3): lower case, characters other than ASCII word characters,
 * spaces and hyphens dropped, spaces to hyphens, hyphen runs collapsed and trimmed. "VIP Customers!" gives
 * "vip-customers".
 */
function slugifySegmentName(name: string): string {
  return name
    .toLowerCase()
    .trim()
    .replace(/[^\w\s-]/g, '')
    .replace(/\s+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-+|-+$/g, '')
}

export type MembershipChange = 'entry' | 'exit'

/**
 * `segment.<slug>.entry|exit`. A name with no word characters at all has an empty slug; the segment id stands
 * in for it so the event still has a name /v1/track cannot forge (events/names.ts reserves `segment.<x>.entry`).
 */
export function segmentEventName(segment: { id: string; name: string }, change: MembershipChange): string {
  return `segment.${slugifySegmentName(segment.name) || segment.id}.${change}`
}

/** The spec's data of a segment event. */
export function segmentEventData(segment: { id: string; name: string }) {
  return { segmentId: segment.id, segmentName: segment.name }
}

const segmentEventPattern = /^segment\.[^.]+\.(entry|exit)$/

export function isSegmentEventName(name: string): boolean {
  return segmentEventPattern.test(name)
}
