import { z } from 'zod'
import type { AppContext } from '../../context.js'
import type { AppError } from '../../errors.js'
import { SmtpRefusal } from '../../mail/submission/handler.js'
import { limitExceeded } from '../billing/usage.js'
import { suppressedEmailErrors } from '../suppressions/service.js'
import { recipientStateLookupOf } from './lookups.js'

const mailbox = z.email().max(254)

/** The refusal of an email the project's monthly transactional cap has no room for. */
export function overBillingCap(err: AppError): SmtpRefusal {
  return new SmtpRefusal(452, `4.3.1 ${err.message}`)
}

/**
 * RCPT TO, each recipient judged alone: an address on the project's suppression list (an earlier permanent bounce
 * or a complaint) is refused with the reason, and none is taken once the monthly transactional cap is reached.
 * The cap is charged at the end of DATA, for all the message's recipients at once; this only refuses early.
 */
export async function checkRecipient(ctx: AppContext, projectId: string, address: string): Promise<void> {
  if (!mailbox.safeParse(address).success) {
    throw new SmtpRefusal(553, `5.1.3 The recipient address ${address} is not valid`)
  }
  const state = await recipientStateLookupOf(ctx.db)({ projectId, address })
  if (state.suppression) throw new SmtpRefusal(550, `5.1.1 ${address} is ${suppressedEmailErrors[state.suppression]}`)
  if (!state.withinCap) throw overBillingCap(await limitExceeded(ctx.db, projectId, 'transactional', 1))
}
