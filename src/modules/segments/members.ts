import type { AppContext } from '../../context.js'
import type { Transaction } from '../../db/client.js'
import { AppError } from '../../errors.js'
import { normalizeEmail } from '../../mail/address.js'
import { reevaluateContacts } from './membership.js'
import type { MembersAdd, MembersAdded } from './schemas.js'
import { findSegment, type Segment, saveMemberCount } from './service.js'
import { addStaticMembers, countActiveMembers, removeStaticMembers } from './sql.js'

async function lockStaticSegment(
  tx: Transaction,
  projectId: string,
  segmentId: string,
  verb: 'add' | 'remove',
): Promise<Segment> {
  const segment = await findSegment(tx, projectId, segmentId, 'membership')
  if (segment.type !== 'STATIC') {
    throw new AppError('BAD_REQUEST', `Can only ${verb} contacts ${verb === 'add' ? 'to' : 'from'} STATIC segments`)
  }
  return segment
}

/**
 * The count moves with the list, and the contacts that really entered or left are re-evaluated at once against
 * the project's tracked dynamic segments, whose conditions may test membership of this one.
 */
async function afterMemberChange(
  ctx: Pick<AppContext, 'log'>,
  tx: Transaction,
  segment: Segment,
  changed: readonly string[],
): Promise<void> {
  await saveMemberCount(tx, segment.id, await countActiveMembers(tx, segment.id))
  if (changed.length > 0) await reevaluateContacts(tx, ctx.log, new Map([[segment.projectId, changed]]))
}

/** Adds contacts to a STATIC segment by address, case-insensitively; one statement for the whole list. */
export async function addMembers(
  ctx: Pick<AppContext, 'db' | 'log'>,
  projectId: string,
  segmentId: string,
  input: MembersAdd,
): Promise<MembersAdded> {
  return ctx.db.transaction(async (tx) => {
    const segment = await lockStaticSegment(tx, projectId, segmentId, 'add')
    const normalised = [...new Set(input.emails.map(normalizeEmail))]
    const create = input.createMissing ? { subscribed: input.subscribed } : undefined
    const added = await addStaticMembers(tx, segment, normalised, create)
    await afterMemberChange(ctx, tx, segment, added.entered)
    const found = new Set(added.emails)
    return {
      added: added.emails.length,
      created: added.created,
      notFound: input.emails.filter((email) => !found.has(normalizeEmail(email))),
    }
  })
}

/** Ends the membership of contacts of a STATIC segment by address; `removed` counts the contacts matched. */
export async function removeMembers(
  ctx: Pick<AppContext, 'db' | 'log'>,
  projectId: string,
  segmentId: string,
  emails: readonly string[],
): Promise<{ removed: number }> {
  return ctx.db.transaction(async (tx) => {
    const segment = await lockStaticSegment(tx, projectId, segmentId, 'remove')
    const removed = await removeStaticMembers(tx, segment, [...new Set(emails.map(normalizeEmail))])
    await afterMemberChange(ctx, tx, segment, removed.exited)
    return { removed: removed.matched }
  })
}
