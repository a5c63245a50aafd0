import { onLoopPass } from '../../src/jobs/loop.js'

/**
 * `vi.waitFor`'s contract (`attempt` throws until what it checks holds; its value is returned) without the
 * polling: `attempt` is tried once at once, then again each time a background loop of this process (the event
 * bus, the workflow or the campaigns loop, of any test server) finishes a run, never on a timer. Like pg-boss's
 * `spy`, the test waits on the loop's signal; the check itself still reads the database, so it waits for the
 * real thing to have happened. On timeout it rejects with the last attempt's error.
 */
export function waitOnLoops<T>(attempt: () => Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false
    let trying = false
    let again = false
    let lastError: unknown = new Error('never tried')
    const finish = (outcome: () => void) => {
      settled = true
      stopListening()
      clearTimeout(timer)
      outcome()
    }
    const tryOnce = async () => {
      if (settled) return
      if (trying) {
        again = true
        return
      }
      trying = true
      try {
        const value = await attempt()
        finish(() => resolve(value))
      } catch (err) {
        lastError = err
      } finally {
        trying = false
      }
      if (again && !settled) {
        again = false
        await tryOnce()
      }
    }
    // Listening before the first attempt: a run that ends during it is not missed.
    const stopListening = onLoopPass((pass) => {
      if (pass.ran) void tryOnce()
    })
    const timer = setTimeout(() => finish(() => reject(lastError)), timeoutMs)
    void tryOnce()
  })
}
