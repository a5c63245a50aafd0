import { z } from 'zod'
import type { AppContext } from '../../context.js'
import { AppError } from '../../errors.js'
import { domainOf } from '../../mail/address.js'
import { SmtpRefusal } from '../../mail/submission/handler.js'
import { assertSenderAllowedBatched, type SenderRow, senderRule } from '../domains/service.js'
import { senderStateLookupOf } from './lookups.js'

const mailbox = z.email().max(254)

function refusedSender(err: unknown): unknown {
  return err instanceof AppError && err.code === 'FORBIDDEN' ? new SmtpRefusal(550, `5.7.1 ${err.message}`) : err
}

/**
 * The sender rule of /v1/send for an address of this project's mail: its domain registered to the project and,
 * with a real transport, verified. Another project's verified domain is not this project's.
 */
export async function assertSenderDomain(ctx: AppContext, projectId: string, address: string): Promise<void> {
  await assertSenderAllowedBatched(ctx.db, ctx.config, projectId, address).catch((err: unknown) => {
    throw refusedSender(err)
  })
}

function applySenderRule(ctx: AppContext, address: string, row: SenderRow | undefined): void {
  try {
    senderRule(ctx.config, address, domainOf(address), row)
  } catch (err) {
    throw refusedSender(err)
  }
}

/**
 * MAIL FROM: the project may send now (not disabled, not paused by the reputation guard: /v1/send refuses both
 * too) and from this address's domain, by the rule of /v1/send, looked up in the same statement (batched). The From header
 * is judged again at the end of DATA when it differs.
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
  const state = await senderStateLookupOf(ctx.db)({ projectId, domain: domainOf(address) })
  if (!state) throw new SmtpRefusal(550, '5.7.1 This project no longer exists')
  if (state.disabledReason !== null) {
    throw new SmtpRefusal(550, `5.7.1 Sending is disabled for this project: ${state.disabledReason}`)
  }
  if (state.pausedReason !== null) {
    throw new SmtpRefusal(550, `5.7.1 Sending is paused for this project: ${state.pausedReason}`)
  }
  applySenderRule(ctx, address, state.domain)
}
