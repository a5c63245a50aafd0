import type { SESv2Client } from '@aws-sdk/client-sesv2'
import { type Transport, TransportError } from './transport.js'

const sesMaxMessageBytes = 40 * 1024 * 1024

const permanentErrors = new Set([
  'MessageRejected',
  'MailFromDomainNotVerifiedException',
  'BadRequestException',
  'NotFoundException',
])

/** Throttling, 5xx, credential and network failures are retried; a rejected message or a bad request is not. */
function classifySesError(err: unknown): TransportError {
  const error = err as Error & { $metadata?: { httpStatusCode?: number }; $retryable?: unknown }
  const name = error.name ?? 'Error'
  const message = `${name}: ${error.message ?? String(err)}`
  if (permanentErrors.has(name)) return new TransportError(message, true, name)
  const status = error.$metadata?.httpStatusCode
  // 403 is a credentials or account problem on our side: keep the email until it is fixed.
  const temporary =
    error.$retryable !== undefined || status === undefined || status === 403 || status === 429 || status >= 500
  return new TransportError(message, !temporary, name)
}

// Loaded on first use: the AWS SDK costs ~20 MB of memory, which capture and smtp setups should not pay.
const loadSdk = () => import('@aws-sdk/client-sesv2')

export type SesTransportOptions = { region?: string; client?: SESv2Client }

/**
 * SES v2 raw send in SES_REGION; credentials (and an endpoint override such as AWS_ENDPOINT_URL_SESV2) come
 * from the standard AWS environment (variables, profile, role).
 */
export function createSesTransport({ region, client: given }: SesTransportOptions = {}): Transport {
  let client: Promise<SESv2Client> | undefined
  const clientOf = () =>
    (client ??= given ? Promise.resolve(given) : loadSdk().then((sdk) => new sdk.SESv2Client({ region })))
  return {
    async send(message) {
      if (message.raw.byteLength > sesMaxMessageBytes) {
        throw new TransportError('Message is larger than the 40 MB SES accepts', true, 'MessageTooLarge')
      }
      const { SendEmailCommand } = await loadSdk()
      try {
        const result = await (await clientOf()).send(
          new SendEmailCommand({
            FromEmailAddress: message.envelope.from,
            Destination: { ToAddresses: message.envelope.to },
            Content: { Raw: { Data: message.raw } },
          }),
        )
        return { providerMessageId: result.MessageId ?? message.messageId }
      } catch (err) {
        throw classifySesError(err)
      }
    },
    async close() {
      if (client) (await client).destroy()
    },
  }
}
