import type { SmtpRelayConfig } from '../../config.js'
import type { AppContext } from '../../context.js'
import type { App } from '../../http/app-type.js'
import { type ConfigView, configView, type SmtpRelayView } from './schemas.js'

export function registerConfigRoutes(app: App, ctx: AppContext): void {
  const { config } = ctx
  // Fixed for the life of the process, so computed once.
  const features: ConfigView = {
    signups: !config.disableSignups,
    emailVerificationRequired: config.requireEmailVerification,
    billing: config.stripe !== undefined,
    storage: { s3: config.s3 !== undefined },
    oauth: { github: config.oauth.github !== undefined, google: config.oauth.google !== undefined },
    inbound: false,
    transport: config.mailTransport,
    smtpRelay: smtpRelayView(config.smtpRelay),
  }
  app.get(
    '/config',
    { config: { auth: 'none' }, schema: { tags: ['system'], response: { 200: configView } } },
    async () => features,
  )
}

function smtpRelayView(relay: SmtpRelayConfig): SmtpRelayView {
  if (!relay.enabled) return { enabled: false, reason: relay.reason }
  return {
    enabled: true,
    host: relay.publicHost,
    ports: { starttls: relay.starttlsPort, tls: relay.tlsPort },
    selfSigned: relay.tls === 'self-signed',
    maxRecipients: relay.maxRecipients,
  }
}
