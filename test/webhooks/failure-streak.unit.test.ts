import { describe, expect, it } from 'vitest'
import { streakChangesOf } from '../../src/modules/webhooks/failure-streak.js'

const at = (second: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, second))
const ok = (endpointId: string, second: number) => ({ endpointId, succeeded: true, at: at(second) })
const failed = (endpointId: string, second: number) => ({ endpointId, succeeded: false, at: at(second) })

describe('a batch of attempts and the failure streak', () => {
  it('ends the streak when the batch ends on a success, whatever failed before it', () => {
    expect(streakChangesOf([failed('a', 1), failed('a', 2), ok('a', 3)])).toEqual([
      { endpointId: 'a', change: 'clear' },
    ])
  })

  it('starts a streak from the first failure unless one runs, and reads its length at the last failure', () => {
    expect(streakChangesOf([failed('a', 1), failed('a', 4), failed('a', 2)])).toEqual([
      { endpointId: 'a', change: 'start', at: at(1), lastFailureAt: at(4) },
    ])
  })

  it('restarts it from the first failure after the batch’s last success', () => {
    expect(streakChangesOf([failed('a', 1), ok('a', 2), failed('a', 3), failed('a', 5)])).toEqual([
      { endpointId: 'a', change: 'restart', at: at(3), lastFailureAt: at(5) },
    ])
  })

  it('keeps each endpoint apart', () => {
    expect(streakChangesOf([ok('a', 1), failed('b', 2), ok('b', 3), failed('c', 4)])).toEqual([
      { endpointId: 'a', change: 'clear' },
      { endpointId: 'b', change: 'clear' },
      { endpointId: 'c', change: 'start', at: at(4), lastFailureAt: at(4) },
    ])
  })
})
