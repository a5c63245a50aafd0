import { pino } from 'pino'
import type { Config } from './config.js'
import { loggableError } from './db/loggable-error.js'

export type Logger = pino.Logger

/** Field names that hold a credential wherever they appear: keys, passwords, sessions, connection strings. */
const secretFields = [
  'authorization',
  'cookie',
  '"set-cookie"',
  'password',
  'passwordHash',
  'secret',
  'secretKey',
  'apiKey',
  'token',
  'sessionId',
  'clientSecret',
  'secretAccessKey',
  'webhookSecret',
  'databaseUrl',
  'smtpUrl',
  'redisUrl',
]

// Down to the depth of `req.headers.authorization` or `err.config.secret`; deeper wildcards would cost every line.
const redactedPaths = secretFields.flatMap((field) => {
  const key = field.startsWith('"') ? `[${field}]` : `.${field}`
  return [key.slice(key.startsWith('.') ? 1 : 0), `*${key}`, `*.*${key}`]
})

/**
 * Every process's logger. Failed queries are logged without their values and known secret fields are censored
 * here, once, so no call site has to remember it.
 */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: config.logLevel,
    serializers: { err: (err: unknown) => pino.stdSerializers.err(loggableError(err) as Error) },
    redact: { paths: redactedPaths, censor: '[redacted]' },
  }
  return destination ? pino(options, destination) : pino(options)
}
