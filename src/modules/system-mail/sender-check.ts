import { ConfigError } from '../../config.js'
import type { AppContext } from '../../context.js'
import { domainOf } from '../../mail/address.js'
import { getSigningKey } from '../domains/service.js'
import { systemProjectId } from './system-project.js'

/**
 * With a real transport, account mail unsigned by its From domain fails DMARC and a password reset lands in spam
 * or is refused; checked at start, so a wrong SYSTEM_EMAIL_FROM stops the process and not, later, a user's
 * reset. Capture sends nothing: a new instance starts in it (no project, so no domain, exists yet), and the
 * operator verifies the domain there before switching to smtp or ses. A relay that signs for the domain itself
 * (SYSTEM_EMAIL_DKIM=relay) needs no key here.
 */
export async function assertSystemSenderSigned(ctx: Pick<AppContext, 'config' | 'db'>): Promise<void> {
  const { config, db } = ctx
  if (config.mailTransport === 'capture' || config.systemEmailDkim === 'relay') return
  const { email } = config.systemEmailFrom
  if (await getSigningKey(db, config, await systemProjectId(db, config.secret), email)) return
  const domain = domainOf(email)
  throw new ConfigError([
    `SYSTEM_EMAIL_FROM: account emails would be sent from ${email}, but no project of this instance has verified ` +
      `${domain}, so they would carry no DKIM signature and fail DMARC. Add ${domain} to a project and publish its ` +
      'DNS records (with MAIL_TRANSPORT=capture until it is verified), use an address on a verified domain, or set ' +
      'SYSTEM_EMAIL_DKIM=relay if your relay signs it; see "Sender of account emails" in the README',
  ])
}
