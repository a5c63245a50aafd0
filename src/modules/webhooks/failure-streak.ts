/**
 * What a batch of recorded attempts does to one endpoint's failure streak (`failing_since`), as recording them one
 * by one in the batch's order would: a success clears it, the first failure after a success starts it anew, and a
 * failure with no success before it in the batch starts it only if none is running.
 * - `clear`: set it to null (the batch ends on a success);
 * - `restart`: set it to `at`, the first failure after the batch's last success;
 * - `start`: set it to `at` unless a streak is already running.
 * `lastFailureAt` (restart and start) is the moment the disable rule reads the streak's length at.
 */
export type StreakChange =
  | { endpointId: string; change: 'clear' }
  | { endpointId: string; change: 'restart' | 'start'; at: Date; lastFailureAt: Date }

export function streakChangesOf(
  outcomes: readonly { endpointId: string; succeeded: boolean; at: Date }[],
): StreakChange[] {
  const byEndpoint = new Map<string, StreakChange>()
  for (const { endpointId, succeeded, at } of outcomes) {
    const current = byEndpoint.get(endpointId)
    if (succeeded) {
      byEndpoint.set(endpointId, { endpointId, change: 'clear' })
    } else if (!current || current.change === 'clear') {
      byEndpoint.set(endpointId, { endpointId, change: current ? 'restart' : 'start', at, lastFailureAt: at })
    } else if (at > current.lastFailureAt) {
      byEndpoint.set(endpointId, { ...current, lastFailureAt: at })
    }
  }
  return [...byEndpoint.values()]
}
