import type pg from 'pg'
import type { Database } from '../../db/client.js'
import { wakeEventDispatcher } from '../../events/wake.js'
import type { Logger } from '../../logger.js'
import { type LinkTarget, linkTarget, readClickToken, readOpenToken } from '../../mail/outbound/tracking-links.js'
import { classifyHitRequest, type HitRequest } from '../feedback/machine-hits.js'
import { applyEmailFeedback, type EmailFeedback } from '../feedback/service.js'
import { findTrackedLink } from './tracked-links.js'

export type TrackingContext = { db: Database; pool: pg.Pool; log: Logger; secret: string }

/**
 * One short transaction per hit: the email row is locked, counted and its `email.open` / `email.click` event
 * published on the email's own project. A failure is logged and swallowed: the recipient still gets the
 * pixel or the redirect, which matters more to them than our count.
 */
async function record(ctx: TrackingContext, emailId: string, feedback: EmailFeedback): Promise<void> {
  try {
    await ctx.db.transaction((tx) => applyEmailFeedback(tx, { emailId }, feedback))
    // The `email.open` / `email.click` event may answer a workflow's WAIT_FOR_EVENT: handed out now, not at a poll.
    wakeEventDispatcher(ctx.pool)
  } catch (err) {
    ctx.log.error({ err, emailId, kind: feedback.kind }, 'recording a tracking hit failed')
  }
}

/**
 * Records an open when the token is genuine, flagged as a machine's when the request or its timing says so
 * (feedback/machine-hits.ts); anything else changes nothing.
 */
export async function recordOpen(ctx: TrackingContext, token: string, request: HitRequest): Promise<void> {
  const at = new Date()
  const emailId = readOpenToken(ctx.secret, token)
  if (emailId) {
    const client = classifyHitRequest('open', request)
    await record(ctx, emailId, { kind: 'open', at, client, source: 'tracking', userAgent: request.userAgent })
  }
}

/**
 * Where a genuine click token leads, and whether to record the click. A token of the former format carries its
 * link. A short one names a stored link (one lookup), which must belong to the project of the email the token
 * names: a link id of another project never redirects, even signed. When that email is gone (a project reset), the
 * link still leads where it did, and nothing is recorded.
 */
async function resolveClick(
  ctx: TrackingContext,
  token: string,
): Promise<{ emailId: string; target: LinkTarget; record: boolean } | undefined> {
  const click = readClickToken(ctx.secret, token)
  if (!click) return undefined
  if ('target' in click) return { emailId: click.emailId, target: click.target, record: true }
  const stored = await findTrackedLink(ctx.pool, click.linkId, click.emailId)
  if (!stored || (stored.emailProjectId !== null && stored.emailProjectId !== stored.projectId)) return undefined
  const target = linkTarget(stored.url)
  return target && { emailId: click.emailId, target, record: stored.emailProjectId !== null }
}

/** The original link of a genuine click token (the click recorded as for opens), or undefined: nothing recorded. */
export async function followClick(
  ctx: TrackingContext,
  token: string,
  request: HitRequest,
): Promise<LinkTarget | undefined> {
  const at = new Date()
  const click = await resolveClick(ctx, token)
  if (click?.record) {
    await record(ctx, click.emailId, {
      kind: 'click',
      at,
      link: click.target.link,
      client: classifyHitRequest('click', request),
      source: 'tracking',
      userAgent: request.userAgent,
    })
  }
  return click?.target
}
