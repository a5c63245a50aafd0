import { resolveContactData } from '../../../contacts/data-rules.js'
import { publishSubscriptionChange } from '../../../contacts/service.js'
import { updateContactRow } from '../../../contacts/sql.js'
import { updateContactConfig } from '../../step-config/config.js'
import { failed, type StepContext, type StepOf, type StepResult } from '../step-context.js'

/**
 * UPDATE_CONTACT: the contact rules of the API (data merged, `null` removes a key; an explicit subscription
 * choice ends a snooze), `contact.(un)subscribed` only for a real flip, tracked segments re-evaluated, all in
 * the step's transaction (the segments once for the batch's contacts, when it ends).
 */
export async function runUpdateContact(step: StepOf<'UPDATE_CONTACT'>, scope: StepContext): Promise<StepResult> {
  const config = updateContactConfig.parse(step.config)
  const subscribed =
    config.subscriptionAction === 'subscribe' ? true : config.subscriptionAction === 'unsubscribe' ? false : undefined
  const row = await updateContactRow(scope.tx, scope.projectId, scope.execution.contactId, {
    subscribed,
    patch: resolveContactData(config.updates),
  })
  if (!row) return failed('The contact no longer exists')
  scope.contactChanged({ data: config.updates !== undefined })
  if (row.previous_subscribed !== row.subscribed) {
    await publishSubscriptionChange(scope.tx, scope.projectId, row.id, row.subscribed)
  }
  return {
    kind: 'next',
    output: {
      updated: true,
      updates: config.updates ?? {},
      newData: row.data,
      subscriptionAction: config.subscriptionAction,
      subscribed: row.subscribed,
    },
  }
}
