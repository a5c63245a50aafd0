import path from 'node:path'
import type { AppContext } from '../../context.js'
import { watchCertificateFiles } from '../../mail/submission/certificates.js'
import type { SubmissionHandler } from '../../mail/submission/handler.js'
import { ensureSelfSignedCertificate } from '../../mail/submission/self-signed-certificate.js'
import { type SubmissionServer, startSubmissionServer } from '../../mail/submission/server.js'
import { maxMessageBytes } from '../send/attachments.js'

/**
 * The SMTP relay's two listeners (STARTTLS and implicit TLS) when `config.smtpRelay` is on; they run in every
 * process that serves the API, so nodes behind a TCP load balancer share the connections. They close with the
 * context, before the database does, so a message being stored still gets its 250.
 */
export async function startRelayListeners(
  ctx: AppContext,
  handler: SubmissionHandler,
): Promise<SubmissionServer | undefined> {
  const relay = ctx.config.smtpRelay
  if (!relay.enabled) {
    // Turned off on purpose is news to no one; off for want of certificates is worth a look.
    const explicit = relay.reason.startsWith('SMTP_RELAY_ENABLED')
    ctx.log[explicit ? 'info' : 'warn']({ reason: relay.reason }, 'SMTP relay off')
    return undefined
  }
  const files =
    relay.tls === 'self-signed'
      ? await ensureSelfSignedCertificate(path.join(ctx.config.dataDir, 'smtp-relay'), relay.publicHost, ctx.log)
      : relay.tls
  const certificates = await watchCertificateFiles(files, { log: ctx.log })
  const server = await startSubmissionServer({
    host: relay.host,
    starttlsPort: relay.starttlsPort,
    tlsPort: relay.tlsPort,
    tls: certificates,
    maxRecipients: relay.maxRecipients,
    maxMessageBytes,
    handler,
    serverName: relay.publicHost,
    log: ctx.log,
  })
  ctx.onClose(() => server.close())
  ctx.log.info(
    { host: relay.host, publicHost: relay.publicHost, starttlsPort: server.starttlsPort, tlsPort: server.tlsPort },
    'SMTP relay listening',
  )
  return server
}
