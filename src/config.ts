import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import path from 'node:path'
import { z } from 'zod'

/** JOB_HEARTBEAT_SECONDS when unset; also what a process that only creates queues paces pg-boss by. */
export const defaultJobHeartbeatSeconds = 20

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes')

const durationUnitsMs: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }
const maxRetryDelayMs = 30 * 86_400_000

/** `250ms`, `5s`, `30m`, `2h`, `1d` in milliseconds; undefined for anything else. */
function durationMs(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text)
  const unit = match?.[2] ? durationUnitsMs[match[2]] : undefined
  if (!match || unit === undefined) return undefined
  const value = Number(match[1]) * unit
  return value <= maxRetryDelayMs ? value : undefined
}

const hostPort = z.string().regex(/^[^\s:]+(:\d{1,5})?$|^\[[0-9a-fA-F:]+\](:\d{1,5})?$/, 'expected host or host:port')

const environmentSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  MAIL_TRANSPORT: z.enum(['capture', 'smtp', 'ses']).default('capture'),
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  SES_REGION: z
    .string()
    .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'expected an AWS region such as eu-west-1')
    .default('us-east-1'),
  DNS_SERVERS: z
    .string()
    .optional()
    .transform((value) => (value ? value.split(',').map((server) => server.trim()) : []))
    .pipe(z.array(hostPort)),
  SNS_TOPIC_ARNS: z
    .string()
    .optional()
    .transform((value) => (value ? value.split(',').map((arn) => arn.trim()) : []))
    .pipe(
      z.array(z.string().regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_.-]+$/, 'expected an SNS topic ARN')),
    ),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((value, ctx): TrustProxy => {
      const text = value?.trim() ?? ''
      if (text === '' || text === 'false') return false
      if (text === 'true') return true
      const addresses = text.split(',').map((entry) => entry.trim())
      if (addresses.some((entry) => !/^[0-9a-fA-F.:]+(\/\d{1,3})?$/.test(entry))) {
        ctx.addIssue({ code: 'custom', message: 'expected true, false or comma-separated proxy addresses/CIDRs' })
        return z.NEVER
      }
      return addresses
    }),
  SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  WEBHOOK_ALLOW_PRIVATE: booleanFlag.default(false),
  // Project webhooks: the wait before each retry (`5s,5m,...`), then the message has failed for good.
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default('5s,5m,30m,2h,5h,10h,10h')
    .transform((value, ctx) => {
      const delays = value.split(',').map((entry) => durationMs(entry.trim()))
      if (delays.length > 20 || delays.some((delay) => delay === undefined)) {
        ctx.addIssue({ code: 'custom', message: 'expected up to 20 comma-separated durations such as 5s,5m,2h' })
        return z.NEVER
      }
      return delays.filter((delay) => delay !== undefined)
    }),
  WEBHOOK_DISABLE_AFTER_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(5 * 24),
  WEBHOOK_LOG_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(8, 'must be at least 8 (replay reaches 7 days back)')
    .max(365)
    .default(30),
  DISABLE_SIGNUPS: booleanFlag.default(false),
  SYSTEM_EMAIL_FROM: z
    .string()
    .regex(/^([^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, 'expected "Name <address>" or an address')
    .optional(),
  SYSTEM_EMAIL_DKIM: z.enum(['mailroom', 'relay']).default('mailroom'),
  REQUIRE_EMAIL_VERIFICATION: booleanFlag.default(false),
  GITHUB_CLIENT_ID: z.string().min(1).optional(),
  GITHUB_CLIENT_SECRET: z.string().min(1).optional(),
  GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  ATTACHMENTS_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  IDEMPOTENCY_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(24),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(1000),
  AUTH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(20),
  FAILED_AUTH_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(20),
  MCP_READ_ONLY: booleanFlag.default(false),
  MCP_CONFIRM_RECIPIENTS: z.coerce.number().int().min(0).default(10),
  REPUTATION_GUARD: booleanFlag.default(true),
  REPUTATION_BOUNCE_RATE_PERCENT: z.coerce.number().positive().max(100).default(8),
  REPUTATION_COMPLAINT_RATE_PERCENT: z.coerce.number().positive().max(100).default(0.3),
  REPUTATION_MIN_SENT: z.coerce.number().int().positive().default(100),
  // Unset: the provider's own suspension levels (10 % and 0.5 %), or the warning threshold if that is higher.
  REPUTATION_CEILING_BOUNCE_RATE_PERCENT: z.coerce.number().positive().max(100).optional(),
  REPUTATION_CEILING_COMPLAINT_RATE_PERCENT: z.coerce.number().positive().max(100).optional(),
  COMPOSE_THREADS: z.coerce.number().int().min(0).max(256).optional(),
  CAMPAIGN_RATE_PER_SECOND: z.coerce.number().positive().max(1_000_000).default(200),
  OUTBOX_LEASE_SECONDS: z.coerce.number().int().positive().max(3_600).default(30),
  // pg-boss refuses a heartbeat under 10 s.
  JOB_HEARTBEAT_SECONDS: z.coerce
    .number()
    .int()
    .min(10, 'must be at least 10 (pg-boss)')
    .max(3_600)
    .default(defaultJobHeartbeatSeconds),
  // The lease covers a webhook call made outside the transaction; it must outlast the call's 10 s timeout.
  WORKFLOW_EXECUTION_LEASE_SECONDS: z.coerce
    .number()
    .int()
    .min(11, 'must be more than the 10 s a webhook call may take')
    .max(3_600)
    .default(30),
  // Held for one project webhook attempt: it must outlast the attempt's 10 s and its recording.
  WEBHOOK_LEASE_SECONDS: z.coerce
    .number()
    .int()
    .min(11, 'must be more than the 10 s a webhook call may take')
    .max(3_600)
    .default(30),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  INBOUND_SMTP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  INBOUND_SMTP_HOST: z.string().min(1).default('0.0.0.0'),
  INBOUND_MAX_MESSAGE_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(25 * 1024 * 1024),
  INBOUND_TLS_KEY_FILE: z.string().min(1).optional(),
  INBOUND_TLS_CERT_FILE: z.string().min(1).optional(),
  SMTP_RELAY_ENABLED: booleanFlag.default(true),
  SMTP_RELAY_HOST: z.string().min(1).default('0.0.0.0'),
  SMTP_RELAY_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SMTP_RELAY_TLS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SMTP_RELAY_PUBLIC_HOST: z.string().min(1).optional(),
  SMTP_RELAY_TLS_KEY_FILE: z.string().min(1).optional(),
  SMTP_RELAY_TLS_CERT_FILE: z.string().min(1).optional(),
  SMTP_RELAY_MAX_RECIPIENTS: z.coerce.number().int().min(1).max(1_000).default(50),
  UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  UPLOAD_MAX_PIXELS: z.coerce.number().int().positive().default(50_000_000),
  S3_BUCKET: z.string().min(1).optional(),
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_ACCESS_KEY_SECRET: z.string().min(1).optional(),
  S3_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  S3_FORCE_PATH_STYLE: booleanFlag.default(false),
  S3_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9!_.*'()-]+(\/[A-Za-z0-9!_.*'()-]+)*$/, "expected path segments of letters, digits and !_.*'()-")
    // A `.` or `..` segment would be resolved away by browsers and CDNs, and the public URL would miss the object.
    .refine((prefix) => !prefix.split('/').some((segment) => /^\.+$/.test(segment)), 'no . or .. segments')
    .optional(),
  INBOUND_DOMAIN: z
    .string()
    .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, 'expected a domain name')
    .transform((value) => value.toLowerCase())
    .optional(),
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_\S+$/, 'expected a Stripe secret key (sk_… or rk_…)')
    .optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_\S+$/, 'expected a Stripe webhook signing secret (whsec_…)')
    .optional(),
  STRIPE_PRICE_ID: z
    .string()
    .regex(/^price_\S+$/, 'expected a Stripe price id (price_…)')
    .optional(),
  /** Another Stripe API endpoint (stripe-mock, a test double); the real API when unset. */
  STRIPE_API_URL: z.url({ protocol: /^https?$/ }).optional(),
})

export type Role = 'all' | 'api' | 'worker'

/** fastify's `trustProxy`: which X-Forwarded-For hops to believe for `request.ip`. */
type TrustProxy = boolean | readonly string[]

export type Config = Readonly<{
  port: number
  host: string
  databaseUrl: string | undefined
  dataDir: string
  publicUrl: string
  mailTransport: 'capture' | 'smtp' | 'ses'
  smtpUrl: string | undefined
  sesRegion: string
  /** SNS topics whose notifications /webhooks/email-provider accepts; empty accepts any correctly signed topic. */
  snsTopicArns: readonly string[]
  dnsServers: readonly string[]
  redisUrl: string | undefined
  /**
   * Reverse proxies whose X-Forwarded-For gives the client address (`request.ip`: per-address rate limits, the
   * tracking routes' machine detection); false: the connecting address is the client's.
   */
  trustProxy: TrustProxy
  secret: string
  webhookAllowPrivate: boolean
  /** Project webhooks (src/modules/webhooks). */
  webhooks: WebhooksConfig
  disableSignups: boolean
  /** Sender of Mailroom's own account mail (verification, password reset, invitations). */
  systemEmailFrom: Readonly<{ email: string; name: string | null }>
  /**
   * Who DKIM-signs account mail: `mailroom`, with the key of the From's domain as verified in a project (a real
   * transport refuses to start without one); `relay`, the SMTP relay or SES, which signs it for that domain itself.
   */
  systemEmailDkim: 'mailroom' | 'relay'
  /** Password accounts must verify their address before they may use a project (OAuth and invited ones have). */
  requireEmailVerification: boolean
  /** OAuth sign-in providers; a provider is on when its client id and secret are set. */
  oauth: Readonly<{ github: OAuthProviderConfig | undefined; google: OAuthProviderConfig | undefined }>
  idempotencyTtlHours: number
  /** Total decoded size of one /v1/send request's attachments. */
  attachmentsMaxBytes: number
  rateLimitPerMinute: number
  /** Login and signup attempts per client address, against password guessing. */
  authRateLimitPerMinute: number
  /** Requests with a wrong API key per client address before the address is answered 429 for the minute. */
  failedAuthLimitPerMinute: number
  /**
   * The MCP server at /mcp: `readOnly` offers only the tools that change nothing; a send to more recipients than
   * `confirmRecipientsAbove` needs the agent's `confirm: true`.
   */
  mcp: Readonly<{ readOnly: boolean; confirmRecipientsAbove: number }>
  /**
   * The reputation guard (docs/decisions/0005): a stream's 7-day rates reaching the warning thresholds
   * (`bounceRatePercent`, `complaintRatePercent`) pause its marketing mail; the transactional stream's reaching the
   * ceiling pauses all of the project's sending.
   */
  reputation: Readonly<{
    enabled: boolean
    bounceRatePercent: number
    complaintRatePercent: number
    ceilingBounceRatePercent: number
    ceilingComplaintRatePercent: number
    /** Emails sent in the 7-day window before the rates are acted on, so a handful of bounces cannot pause. */
    minSent: number
  }>
  /**
   * `GET /metrics`: on the API port only with `Authorization: Bearer <token>`; on its own listener (every
   * process role, worker included) when `port` is set, which asks for the token too when there is one.
   */
  metrics: Readonly<{ token: string | undefined; port: number | undefined; host: string }>
  /**
   * Campaign emails per second per project, across every worker: a big campaign goes out at a pace the
   * provider and the receivers accept, and transactional mail keeps its head start.
   */
  campaignRatePerSecond: number
  /**
   * Threads that render, build and DKIM-sign outgoing messages, off the event loop (default: one per core); 0
   * does it on the main thread, which suits a single core.
   */
  composeThreads: number
  /** How soon work held by a process that died is taken up again (docs/decisions/0013). */
  crashRecovery: CrashRecoveryConfig
  logLevel: z.infer<typeof environmentSchema>['LOG_LEVEL']
  /** Port of the built-in inbound SMTP receiver; undefined: the receiver is off. */
  inboundSmtpPort: number | undefined
  inboundSmtpHost: string
  inboundMaxMessageBytes: number
  /** PEM files for STARTTLS on the receiver; undefined: plain SMTP only. */
  inboundTls: { keyFile: string; certFile: string } | undefined
  /** The SMTP submission relay (docs/decisions/0023), or why it is off. */
  smtpRelay: SmtpRelayConfig
  /** `POST /uploads/image`: the largest file accepted, and the most pixels (all frames) decoded from one. */
  uploads: Readonly<{ maxBytes: number; maxPixels: number }>
  /** S3-compatible storage for uploads; undefined: they are kept under `DATA_DIR/uploads` and served by the API. */
  s3: S3Config | undefined
  /** Domain whose `unsubscribe+TOKEN@` mailboxes unsubscribe contacts (the mailto List-Unsubscribe form). */
  inboundDomain: string | undefined
  /**
   * Billing through Stripe, when both STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are set; undefined: billing is
   * off (the Stripe routes answer BILLING_NOT_ENABLED) and the monthly caps still work.
   */
  stripe: StripeConfig | undefined
}>

type WebhooksConfig = Readonly<{
  /** The wait before each retry after a failed attempt; when it is used up the message has failed. */
  retryScheduleMs: readonly number[]
  /** An endpoint whose attempts have failed for this long without one success is disabled. */
  disableAfterMs: number
  /** Messages (and their attempts, the delivery log) are deleted this long after they were made. */
  logRetentionDays: number
}>

type CrashRecoveryConfig = Readonly<{
  /** How long a claimed email stays a worker's without a renewal (renewed every third of it). */
  outboxLeaseSeconds: number
  /**
   * A job whose worker stops beating for this long is failed and retried; the beat and pg-boss's supervisor
   * run at fractions of it (jobs/define.ts).
   */
  jobHeartbeatSeconds: number
  /** How long a workflow execution is held while its webhook call is out, or kept aside after it failed. */
  workflowExecutionLeaseSeconds: number
  /** How long a project webhook message is held for one attempt; one held by a process that died is due again after. */
  webhookLeaseSeconds: number
}>

export type StripeConfig = Readonly<{
  secretKey: string
  webhookSecret: string
  /** The subscription price a checkout sells. */
  priceId: string
  /** Where the Stripe client sends its requests; undefined: api.stripe.com. */
  apiUrl: string | undefined
}>

export type S3Config = Readonly<{
  bucket: string
  /** An S3-compatible service's URL; undefined: AWS S3 in `region`. */
  endpoint: string | undefined
  region: string
  accessKeyId: string
  secretAccessKey: string
  /** Where the bucket's objects are publicly readable (a public bucket's URL or a CDN in front of it). */
  publicUrl: string
  forcePathStyle: boolean
  /** Prepended to every object key (`PREFIX/<projectId>/...`), for a bucket shared with other data. */
  prefix: string | undefined
}>

/**
 * One OAuth provider: its client and endpoints. The endpoints default to the provider's public ones; tests
 * point them at a local provider, and a GitHub Enterprise server can be used the same way.
 */
export type OAuthProviderConfig = Readonly<{
  clientId: string
  clientSecret: string
  authorizationUrl: string
  tokenUrl: string
  /** The profile endpoint: GitHub's `/user`, Google's OpenID Connect userinfo. */
  userUrl: string
  /** GitHub's `/user/emails` (the verified addresses); unused for Google, whose userinfo says it. */
  emailsUrl: string | undefined
}>

const githubEndpoints = {
  authorizationUrl: 'https://github.com/login/oauth/authorize',
  tokenUrl: 'https://github.com/login/oauth/access_token',
  userUrl: 'https://api.github.com/user',
  emailsUrl: 'https://api.github.com/user/emails',
} as const

const googleEndpoints = {
  authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
  tokenUrl: 'https://oauth2.googleapis.com/token',
  userUrl: 'https://openidconnect.googleapis.com/v1/userinfo',
  emailsUrl: undefined,
} as const

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`)
  }
}

/** Reads the environment once; the result is frozen and passed to everything that needs it. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const parsed = environmentSchema.safeParse(env)
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`))
  }
  const values = parsed.data
  if (values.MAIL_TRANSPORT === 'smtp' && !values.SMTP_URL) {
    throw new ConfigError(['SMTP_URL: required when MAIL_TRANSPORT is smtp'])
  }
  for (const provider of ['GITHUB', 'GOOGLE'] as const) {
    if ((values[`${provider}_CLIENT_ID`] === undefined) !== (values[`${provider}_CLIENT_SECRET`] === undefined)) {
      throw new ConfigError([`${provider}_CLIENT_ID, ${provider}_CLIENT_SECRET: set both or neither`])
    }
  }
  for (const prefix of ['INBOUND', 'SMTP_RELAY'] as const) {
    if ((values[`${prefix}_TLS_KEY_FILE`] === undefined) !== (values[`${prefix}_TLS_CERT_FILE`] === undefined)) {
      throw new ConfigError([`${prefix}_TLS_KEY_FILE, ${prefix}_TLS_CERT_FILE: set both or neither`])
    }
  }
  const dataDir = path.resolve(values.DATA_DIR)
  const s3 = s3Config(values)
  const publicUrl = (values.PUBLIC_URL ?? `http://localhost:${values.PORT}`).replace(/\/+$/, '')
  const oauthProvider = (
    clientId: string | undefined,
    clientSecret: string | undefined,
    endpoints: Omit<OAuthProviderConfig, 'clientId' | 'clientSecret'>,
  ): OAuthProviderConfig | undefined =>
    clientId && clientSecret ? Object.freeze({ clientId, clientSecret, ...endpoints }) : undefined
  return Object.freeze({
    stripe: stripeConfig(values),
    port: values.PORT,
    host: values.HOST,
    databaseUrl: values.DATABASE_URL,
    dataDir,
    publicUrl,
    mailTransport: values.MAIL_TRANSPORT,
    smtpUrl: values.SMTP_URL,
    sesRegion: values.SES_REGION,
    snsTopicArns: values.SNS_TOPIC_ARNS,
    dnsServers: values.DNS_SERVERS,
    redisUrl: values.REDIS_URL,
    trustProxy: values.TRUST_PROXY,
    secret: values.SECRET ?? readOrCreateSecret(dataDir),
    webhookAllowPrivate: values.WEBHOOK_ALLOW_PRIVATE,
    webhooks: Object.freeze({
      retryScheduleMs: Object.freeze(values.WEBHOOK_RETRY_SCHEDULE),
      disableAfterMs: values.WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000,
      logRetentionDays: values.WEBHOOK_LOG_RETENTION_DAYS,
    }),
    disableSignups: values.DISABLE_SIGNUPS,
    systemEmailFrom: parseSystemSender(values.SYSTEM_EMAIL_FROM, publicUrl),
    systemEmailDkim: values.SYSTEM_EMAIL_DKIM,
    requireEmailVerification: values.REQUIRE_EMAIL_VERIFICATION,
    oauth: Object.freeze({
      github: oauthProvider(values.GITHUB_CLIENT_ID, values.GITHUB_CLIENT_SECRET, githubEndpoints),
      google: oauthProvider(values.GOOGLE_CLIENT_ID, values.GOOGLE_CLIENT_SECRET, googleEndpoints),
    }),
    idempotencyTtlHours: values.IDEMPOTENCY_TTL_HOURS,
    attachmentsMaxBytes: values.ATTACHMENTS_MAX_BYTES,
    rateLimitPerMinute: values.RATE_LIMIT_PER_MINUTE,
    authRateLimitPerMinute: values.AUTH_RATE_LIMIT_PER_MINUTE,
    failedAuthLimitPerMinute: values.FAILED_AUTH_LIMIT_PER_MINUTE,
    mcp: Object.freeze({ readOnly: values.MCP_READ_ONLY, confirmRecipientsAbove: values.MCP_CONFIRM_RECIPIENTS }),
    reputation: Object.freeze({
      enabled: values.REPUTATION_GUARD,
      bounceRatePercent: values.REPUTATION_BOUNCE_RATE_PERCENT,
      complaintRatePercent: values.REPUTATION_COMPLAINT_RATE_PERCENT,
      minSent: values.REPUTATION_MIN_SENT,
      ...reputationCeiling(values),
    }),
    metrics: Object.freeze({ token: values.METRICS_TOKEN, port: values.METRICS_PORT, host: values.METRICS_HOST }),
    campaignRatePerSecond: values.CAMPAIGN_RATE_PER_SECOND,
    composeThreads: values.COMPOSE_THREADS ?? availableParallelism(),
    crashRecovery: Object.freeze({
      outboxLeaseSeconds: values.OUTBOX_LEASE_SECONDS,
      jobHeartbeatSeconds: values.JOB_HEARTBEAT_SECONDS,
      workflowExecutionLeaseSeconds: values.WORKFLOW_EXECUTION_LEASE_SECONDS,
      webhookLeaseSeconds: values.WEBHOOK_LEASE_SECONDS,
    }),
    logLevel: values.LOG_LEVEL,
    inboundSmtpPort: values.INBOUND_SMTP_PORT,
    inboundSmtpHost: values.INBOUND_SMTP_HOST,
    inboundMaxMessageBytes: values.INBOUND_MAX_MESSAGE_BYTES,
    inboundTls:
      values.INBOUND_TLS_KEY_FILE && values.INBOUND_TLS_CERT_FILE
        ? { keyFile: values.INBOUND_TLS_KEY_FILE, certFile: values.INBOUND_TLS_CERT_FILE }
        : undefined,
    inboundDomain: values.INBOUND_DOMAIN,
    smtpRelay: smtpRelayConfig(values, publicUrl),
    uploads: Object.freeze({ maxBytes: values.UPLOAD_MAX_BYTES, maxPixels: values.UPLOAD_MAX_PIXELS }),
    s3,
  })
}

export type SmtpRelayConfig = Readonly<
  | {
      enabled: true
      /** Where the listeners bind. */
      host: string
      /** The host name users put in their apps' SMTP settings: SMTP_RELAY_PUBLIC_HOST, else PUBLIC_URL's host. */
      publicHost: string
      /** Submission with STARTTLS required before AUTH: 587 with a real transport, 2587 under `capture`; 0 a free port. */
      starttlsPort: number
      /** Submission over implicit TLS: 465 with a real transport, 2465 under `capture`; 0 a free port. */
      tlsPort: number
      /** PEM files, reloaded when they change or on SIGHUP; `self-signed`: made once in DATA_DIR (development only). */
      tls: { keyFile: string; certFile: string } | 'self-signed'
      /** Recipients taken per message; further RCPT TO get 452 4.5.3. */
      maxRecipients: number
    }
  | { enabled: false; reason: string }
>

/**
 * A real transport sends to the internet: that is production, where the relay's privileged ports are the default
 * and a self-signed certificate would teach users' apps to skip verification, so without certificate files it is off.
 */
function smtpRelayConfig(values: z.infer<typeof environmentSchema>, publicUrl: string): SmtpRelayConfig {
  if (!values.SMTP_RELAY_ENABLED) return { enabled: false, reason: 'SMTP_RELAY_ENABLED is false' }
  const production = values.MAIL_TRANSPORT !== 'capture'
  const files =
    values.SMTP_RELAY_TLS_KEY_FILE && values.SMTP_RELAY_TLS_CERT_FILE
      ? { keyFile: values.SMTP_RELAY_TLS_KEY_FILE, certFile: values.SMTP_RELAY_TLS_CERT_FILE }
      : undefined
  if (production && !files) {
    return {
      enabled: false,
      reason: `MAIL_TRANSPORT is ${values.MAIL_TRANSPORT} and SMTP_RELAY_TLS_KEY_FILE, SMTP_RELAY_TLS_CERT_FILE are unset`,
    }
  }
  return Object.freeze({
    enabled: true,
    host: values.SMTP_RELAY_HOST,
    publicHost: values.SMTP_RELAY_PUBLIC_HOST ?? new URL(publicUrl).hostname,
    starttlsPort: values.SMTP_RELAY_PORT ?? (production ? 587 : 2587),
    tlsPort: values.SMTP_RELAY_TLS_PORT ?? (production ? 465 : 2465),
    tls: files ?? 'self-signed',
    maxRecipients: values.SMTP_RELAY_MAX_RECIPIENTS,
  })
}

/** S3 is on when `S3_BUCKET` is set; then the credentials and the public URL are required too. */
function s3Config(values: z.infer<typeof environmentSchema>): S3Config | undefined {
  if (!values.S3_BUCKET) return undefined
  const { S3_ACCESS_KEY_ID: accessKeyId, S3_ACCESS_KEY_SECRET: secretAccessKey, S3_PUBLIC_URL: publicUrl } = values
  if (!accessKeyId || !secretAccessKey || !publicUrl) {
    const missing = Object.entries({
      S3_ACCESS_KEY_ID: accessKeyId,
      S3_ACCESS_KEY_SECRET: secretAccessKey,
      S3_PUBLIC_URL: publicUrl,
    })
      .filter(([, value]) => !value)
      .map(([name]) => `${name}: required when S3_BUCKET is set`)
    throw new ConfigError(missing)
  }
  return Object.freeze({
    bucket: values.S3_BUCKET,
    endpoint: values.S3_ENDPOINT,
    region: values.S3_REGION,
    accessKeyId,
    secretAccessKey,
    publicUrl: publicUrl.replace(/\/+$/, ''),
    forcePathStyle: values.S3_FORCE_PATH_STYLE,
    prefix: values.S3_PREFIX,
  })
}

/** Default ceilings: the levels at which SES suspends an account, never below the warning thresholds. */
const defaultCeiling = { bounce: 10, complaint: 0.5 }

function reputationCeiling(values: z.infer<typeof environmentSchema>) {
  const bounce = values.REPUTATION_CEILING_BOUNCE_RATE_PERCENT
  const complaint = values.REPUTATION_CEILING_COMPLAINT_RATE_PERCENT
  const errors: string[] = []
  if (bounce !== undefined && bounce < values.REPUTATION_BOUNCE_RATE_PERCENT) {
    errors.push('REPUTATION_CEILING_BOUNCE_RATE_PERCENT: must not be below REPUTATION_BOUNCE_RATE_PERCENT')
  }
  if (complaint !== undefined && complaint < values.REPUTATION_COMPLAINT_RATE_PERCENT) {
    errors.push('REPUTATION_CEILING_COMPLAINT_RATE_PERCENT: must not be below REPUTATION_COMPLAINT_RATE_PERCENT')
  }
  if (errors.length > 0) throw new ConfigError(errors)
  return {
    ceilingBounceRatePercent: bounce ?? Math.max(defaultCeiling.bounce, values.REPUTATION_BOUNCE_RATE_PERCENT),
    ceilingComplaintRatePercent:
      complaint ?? Math.max(defaultCeiling.complaint, values.REPUTATION_COMPLAINT_RATE_PERCENT),
  }
}

function stripeConfig(values: z.infer<typeof environmentSchema>): StripeConfig | undefined {
  const { STRIPE_SECRET_KEY: secretKey, STRIPE_WEBHOOK_SECRET: webhookSecret, STRIPE_PRICE_ID: priceId } = values
  if (secretKey === undefined && webhookSecret === undefined) return undefined
  if (secretKey === undefined || webhookSecret === undefined) {
    throw new ConfigError(['STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET: set both or neither'])
  }
  if (priceId === undefined) throw new ConfigError(['STRIPE_PRICE_ID: required when Stripe billing is on'])
  return Object.freeze({ secretKey, webhookSecret, priceId, apiUrl: values.STRIPE_API_URL })
}

/**
 * Without DATABASE_URL the database is this process's own embedded one, behind the DATA_DIR lock: no other process
 * works on it, so this one need not wake others, and all work left in flight was left by a process that died.
 */
export function isSoleWorker(config: Pick<Config, 'databaseUrl'>): boolean {
  return config.databaseUrl === undefined
}

/** What `backup` and `restore` need: they must not create the secret in a DATA_DIR that a restore will fill. */
export type DataDirConfig = Readonly<{ dataDir: string; databaseUrl: string | undefined }>

export function loadDataDirConfig(env: NodeJS.ProcessEnv): DataDirConfig {
  const parsed = environmentSchema.pick({ DATA_DIR: true, DATABASE_URL: true }).safeParse(env)
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`))
  }
  return Object.freeze({ dataDir: path.resolve(parsed.data.DATA_DIR), databaseUrl: parsed.data.DATABASE_URL })
}

/**
 * The domain of the mailto List-Unsubscribe address, or undefined when mail to it would not reach us: the
 * address is offered only while the built-in receiver runs, so an unsubscribe by mail is never lost.
 */
export function unsubscribeMailDomain(config: Config): string | undefined {
  return config.inboundSmtpPort === undefined ? undefined : config.inboundDomain
}

/** `Name <address>` or a bare address; by default no-reply at PUBLIC_URL's host. */
function parseSystemSender(value: string | undefined, publicUrl: string): Config['systemEmailFrom'] {
  const named = value ? /^\s*([^<>]*?)\s*<([^<>]+)>\s*$/.exec(value) : null
  if (named?.[2]) return Object.freeze({ email: named[2].trim(), name: named[1] || null })
  if (value) return Object.freeze({ email: value.trim(), name: null })
  return Object.freeze({ email: `no-reply@${new URL(publicUrl).hostname}`, name: 'Mailroom' })
}

/** A generated secret is kept in the data dir so sessions and signed links survive a restart. */
function readOrCreateSecret(dataDir: string): string {
  const file = path.join(dataDir, 'secret')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  mkdirSync(dataDir, { recursive: true })
  const secret = randomBytes(32).toString('hex')
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' })
  return secret
}
