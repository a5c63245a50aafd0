import { subscriptionUrls } from '../../../../mail/outbound/subscription-links.js'
import {
  defaultWebhookPayload,
  renderWebhookRequest,
  sendWebhook,
  WebhookError,
  webhookResolverOf,
  webhookStepConfig,
} from '../../webhook/index.js'
import { failed, type StepContext, type StepOf, type StepResult } from '../step-context.js'

/**
 * WEBHOOK: the request is rendered inside the step's transaction (a bad placeholder result fails the step there),
 * and made outside it by the engine. A non-2xx answer, a timeout or a refused address fails the step with the
 * status and the first bytes of the answer; nothing is retried.
 */
export async function runWebhook(step: StepOf<'WEBHOOK'>, scope: StepContext): Promise<StepResult> {
  const config = webhookStepConfig.parse(step.config)
  const contact = await scope.contact()
  const { execution, workflow, ctx } = scope
  // An event-started execution's context is the event's payload (Plunk); a manual one has no event.
  const event = execution.triggerKind === 'EVENT' ? execution.context : {}
  const target = { url: config.url, method: config.method }
  let request: ReturnType<typeof renderWebhookRequest>
  try {
    request = renderWebhookRequest(
      config,
      {
        contact,
        event,
        context: execution.context,
        subscriptionUrls: subscriptionUrls(ctx.config.publicUrl, ctx.config.secret, {
          projectId: scope.projectId,
          contactId: contact.id,
        }),
      },
      defaultWebhookPayload({ contact, workflow, execution, event }),
    )
  } catch (err) {
    if (err instanceof WebhookError) return failed(err.message, target)
    throw err
  }
  const sent = { url: request.url, method: request.method }
  return {
    kind: 'call',
    output: sent,
    call: async () => {
      try {
        const answer = await sendWebhook(request, {
          resolver: webhookResolverOf(ctx),
          allowPrivate: ctx.config.webhookAllowPrivate,
        })
        const output = {
          ...sent,
          finalUrl: answer.url,
          statusCode: answer.status,
          success: answer.ok,
          response: answer.responsePreview,
        }
        return answer.ok
          ? { kind: 'next', output }
          : failed(`The endpoint answered ${answer.status}: ${answer.responsePreview.slice(0, 200)}`, output)
      } catch (err) {
        // Whatever went wrong, the step is over: left RUNNING it would only be failed later, never retried.
        return failed(err instanceof WebhookError ? err.message : `The request failed: ${String(err)}`, sent)
      }
    },
  }
}
