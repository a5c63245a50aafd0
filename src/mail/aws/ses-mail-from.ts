import type { SESv2Client } from '@aws-sdk/client-sesv2'

/**
 * Sets (or, with undefined, removes) the custom MAIL FROM domain of an SES identity. SES has no per-message
 * envelope sender: the identity's setting is what makes it send `identity`'s mail with MAIL FROM at that domain.
 * Throws an Error whose message says what SES answered.
 */
export type SetSesMailFrom = (identity: string, mailFromDomain: string | undefined) => Promise<void>

const loadSdk = () => import('@aws-sdk/client-sesv2')

export function createSesMailFrom({
  region,
  client: given,
}: {
  region?: string
  client?: SESv2Client
}): SetSesMailFrom {
  let client: Promise<SESv2Client> | undefined
  const clientOf = () =>
    (client ??= given ? Promise.resolve(given) : loadSdk().then((sdk) => new sdk.SESv2Client({ region })))
  return async (identity, mailFromDomain) => {
    const { PutEmailIdentityMailFromAttributesCommand } = await loadSdk()
    try {
      await (await clientOf()).send(
        new PutEmailIdentityMailFromAttributesCommand({
          EmailIdentity: identity,
          MailFromDomain: mailFromDomain,
          // If the MX goes missing later, SES keeps sending with its own MAIL FROM rather than rejecting mail.
          ...(mailFromDomain ? { BehaviorOnMxFailure: 'USE_DEFAULT_VALUE' as const } : {}),
        }),
      )
    } catch (err) {
      const error = err as Error
      // Removing the setting from an identity SES no longer has leaves nothing to remove.
      if (mailFromDomain === undefined && error.name === 'NotFoundException') return
      throw new Error(`${error.name}: ${error.message}`)
    }
  }
}
