/*
 * SIGINT and SIGTERM, taken from the process's first moment. Left to their default action, a signal that arrives
 * while the server starts (an orchestrator stopping a pod that just began, a test stopping a server as soon as
 * `/health` answers) ends the process at once and leaves the embedded PostgreSQL running without it, for the next
 * start to stop first. Taken early, it is held until the server has started and can stop as it always does.
 */
let stop: ((signal: string) => void) | undefined
let held: string | undefined

function onSignal(signal: string): void {
  if (stop) stop(signal)
  else held ??= signal
}

/**
 * From now on a first SIGINT or SIGTERM is ours; a second one ends the process as usual. `migrate`, which never
 * asks for one, finishes its migrations and exits as it would have.
 */
export function takeShutdownSignals(): void {
  process.once('SIGINT', () => onSignal('SIGINT'))
  process.once('SIGTERM', () => onSignal('SIGTERM'))
}

/** How to stop, once started; a signal that came while the server started is handed to it now. */
export function onShutdownSignal(handler: (signal: string) => void): void {
  stop = handler
  if (held) handler(held)
}
