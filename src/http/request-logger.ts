import type { FastifyBaseLogger } from 'fastify'
import type { Bindings, ChildLoggerOptions, Level, LogFn } from 'pino'

/**
 * fastify's `childLoggerFactory`: the request's logger (the parent's child with the request id) made on the request's
 * first log line instead of for every request. Request logging is off, so most requests never log, and a pino child
 * (its bindings serialised, redacted) cost ~2 % of the server's busy time under `/v1/send` load (2026-11-29).
 */
export function lazyRequestLogger(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  let child: FastifyBaseLogger | undefined
  const made = () => {
    child ??= parent.child(bindings, options)
    return child
  }
  const forward =
    (level: Level | 'silent'): LogFn =>
    (...args: unknown[]) => {
      const logger = made()
      Reflect.apply(logger[level], logger, args)
    }
  return {
    get level() {
      return child?.level ?? options.level ?? parent.level
    },
    set level(level: string) {
      made().level = level
    },
    fatal: forward('fatal'),
    error: forward('error'),
    warn: forward('warn'),
    info: forward('info'),
    debug: forward('debug'),
    trace: forward('trace'),
    silent: forward('silent'),
    child: (childBindings, childOptions) => made().child(childBindings, childOptions),
  }
}
