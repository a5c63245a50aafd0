import { z } from 'zod'

/**
 * What an app's SMTP settings need, when the relay runs: never the certificate files' paths. When it is off, the
 * reason names only environment variables and the transport (which `transport` already tells), so an owner reading
 * the dashboard learns what to set without a look at the server's log.
 */
const smtpRelayView = z.discriminatedUnion('enabled', [
  z.object({
    enabled: z.literal(true),
    /** The host name to paste into an app's settings. */
    host: z.string(),
    /** STARTTLS (required before AUTH) and implicit TLS. */
    ports: z.object({ starttls: z.number().int(), tls: z.number().int() }),
    /** The development certificate made in DATA_DIR: apps must be told to accept it. */
    selfSigned: z.boolean(),
    maxRecipients: z.number().int(),
  }),
  z.object({ enabled: z.literal(false), reason: z.string() }),
])
export type SmtpRelayView = z.infer<typeof smtpRelayView>

/** `GET /config`: what this deployment has enabled, for the dashboard to show or hide features. */
export const configView = z.object({
  signups: z.boolean(),
  emailVerificationRequired: z.boolean(),
  billing: z.boolean(),
  storage: z.object({ s3: z.boolean() }),
  oauth: z.object({ github: z.boolean(), google: z.boolean() }),
  inbound: z.boolean(),
  transport: z.enum(['capture', 'smtp', 'ses']),
  smtpRelay: smtpRelayView,
})
export type ConfigView = z.infer<typeof configView>
