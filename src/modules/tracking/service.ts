import type { Database } from '../../db/client.js'
import type { Logger } from '../../logger.js'
import { readClickToken, readOpenToken, type TrackedClick } from '../../mail/tracking-links.js'
import { applyEmailFeedback, type EmailFeedback } from '../feedback/service.js'

export type TrackingContext = { db: Database; log: Logger; secret: string }

/**
 * One short transaction per hit: the email row is locked, counted and its `email.open` / `email.click` event
 * published on the email's own project. A failure is logged and swallowed: the recipient still gets the
 * pixel or the redirect, which matters more to them than our count.
 */
async function record(ctx: TrackingContext, emailId: string, feedback: EmailFeedback): Promise<void> {
  try {
    await ctx.db.transaction((tx) => applyEmailFeedback(tx, { emailId }, feedback))
  } catch (err) {
    ctx.log.error({ err, emailId, kind: feedback.kind }, 'recording a tracking hit failed')
  }
}

/** Counts an open when the token is genuine; anything else changes nothing. */
export async function recordOpen(ctx: TrackingContext, token: string, count: boolean): Promise<void> {
  const emailId = readOpenToken(ctx.secret, token)
  if (emailId && count) await record(ctx, emailId, { kind: 'open', at: new Date() })
}

/** The original link of a genuine click token (counted when `count`), or undefined: no redirect, nothing recorded. */
export async function followClick(
  ctx: TrackingContext,
  token: string,
  count: boolean,
): Promise<TrackedClick | undefined> {
  const click = readClickToken(ctx.secret, token)
  if (click && count) await record(ctx, click.emailId, { kind: 'click', at: new Date(), link: click.link })
  return click
}
