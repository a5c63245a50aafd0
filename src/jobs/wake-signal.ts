/** A wait that `notify` ends early. A notify while nobody waits is kept: the next wait returns at once. */
export type WakeSignal = { wait(timeoutMs: number): Promise<void>; notify(): void }

export function createWakeSignal(): WakeSignal {
  let notified = false
  let endWait: (() => void) | undefined
  return {
    notify() {
      notified = true
      endWait?.()
    },
    wait(timeoutMs) {
      return new Promise<void>((resolve) => {
        if (notified) return resolve()
        const timer = setTimeout(() => endWait?.(), timeoutMs)
        endWait = () => {
          clearTimeout(timer)
          endWait = undefined
          resolve()
        }
      }).then(() => {
        notified = false
      })
    },
  }
}
