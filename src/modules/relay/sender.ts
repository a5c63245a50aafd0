import { z } from 'zod'
import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import { SmtpRefusal } from '../../mail/submission/handler.js'
import { assertSenderAllowedBatched } from '../domains/service.js'
import { findSendingState } from './sql.js'

const mailbox = z.email().max(254)

/**
 * The sender rule of /v1/send for an address of this project's mail: its domain registered to the project and,
 * with a real transport, verified. Another project's verified domain is not this project's.
 */
export async function assertSenderDomain(ctx: AppContext, projectId: string, address: string): Promise<void> {
  try {
    await assertSenderAllowedBatched(ctx.db, ctx.config, projectId, address)
  } catch (err) {
    if (err instanceof AppError && err.code === 'FORBIDDEN') throw new SmtpRefusal(550, `5.7.1 ${err.message}`)
    throw err
  }
}

/**
 * MAIL FROM: the project may send now (not disabled, not paused by the reputation guard: /v1/send refuses both
 * too) and from this address's domain. The From header is judged again at the end of DATA when it differs.
 */
export async function checkSender(ctx: AppContext, projectId: string, address: string): Promise<void> {
  if (address === '') {
    throw new SmtpRefusal(
      550,
      '5.7.1 A null sender (MAIL FROM:<>) cannot submit mail; give an address of a verified domain',
    )
  }
  if (!mailbox.safeParse(address).success)
    throw new SmtpRefusal(553, `5.1.7 The sender address ${address} is not valid`)
  // Both lookups at once: the domain's answer is only used when the project may send at all.
  const [state, domain] = await Promise.allSettled([
    findSendingState(ctx.db, projectId),
    assertSenderDomain(ctx, projectId, address),
  ])
  if (state.status === 'rejected') throw state.reason
  if (!state.value) throw new SmtpRefusal(550, '5.7.1 This project no longer exists')
  if (state.value.disabledReason !== null) {
    throw new SmtpRefusal(550, `5.7.1 Sending is disabled for this project: ${state.value.disabledReason}`)
  }
  if (state.value.pausedReason !== null) {
    throw new SmtpRefusal(550, `5.7.1 Sending is paused for this project: ${state.value.pausedReason}`)
  }
  if (domain.status === 'rejected') throw domain.reason
}
