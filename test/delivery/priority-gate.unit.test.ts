import { describe, expect, it } from 'vitest'
import { createPriorityGate } from '../../src/modules/delivery/priority-gate.js'

function deferred() {
  let resolve: () => void = () => {}
  const promise = new Promise<void>((done) => {
    resolve = done
  })
  return { promise, resolve }
}

describe('priority gate', () => {
  it('runs at most `limit` tasks at once, and waiting urgent tasks before waiting bulk ones', async () => {
    const gate = createPriorityGate(2)
    const started: string[] = []
    const blockers = [deferred(), deferred()]
    const task = (name: string, until?: Promise<void>) => async () => {
      started.push(name)
      await until
      return name
    }
    const running = [
      gate.run(false, task('bulk-1', blockers[0]?.promise)),
      gate.run(false, task('bulk-2', blockers[1]?.promise)),
    ]
    const waiting = [gate.run(false, task('bulk-3')), gate.run(true, task('urgent-1')), gate.run(false, task('bulk-4'))]
    await Promise.resolve()
    expect(started).toEqual(['bulk-1', 'bulk-2'])
    blockers[0]?.resolve()
    await running[0]
    await waiting[1]
    // The urgent task took the freed place ahead of the bulk task queued before it.
    expect(started.slice(0, 3)).toEqual(['bulk-1', 'bulk-2', 'urgent-1'])
    blockers[1]?.resolve()
    expect(await Promise.all([...running, ...waiting])).toEqual(['bulk-1', 'bulk-2', 'bulk-3', 'urgent-1', 'bulk-4'])
    expect(started.slice(3)).toEqual(['bulk-3', 'bulk-4'])
  })

  it('keeps the places above `bulkLimit` for urgent tasks', async () => {
    const gate = createPriorityGate(3, 1)
    const started: string[] = []
    const blocker = deferred()
    const task = (name: string) => async () => {
      started.push(name)
      await blocker.promise
      return name
    }
    const all = [
      gate.run(false, task('bulk-1')),
      gate.run(false, task('bulk-2')),
      gate.run(true, task('urgent-1')),
      gate.run(true, task('urgent-2')),
      gate.run(true, task('urgent-3')),
    ]
    await Promise.resolve()
    expect(started).toEqual(['bulk-1', 'urgent-1', 'urgent-2'])
    blocker.resolve()
    expect(await Promise.all(all)).toEqual(['bulk-1', 'bulk-2', 'urgent-1', 'urgent-2', 'urgent-3'])
    expect(started.slice(3)).toEqual(['urgent-3', 'bulk-2'])
  })

  it('frees its place when a task fails', async () => {
    const gate = createPriorityGate(1)
    await expect(gate.run(true, async () => Promise.reject(new Error('refused')))).rejects.toThrow('refused')
    expect(await gate.run(false, async () => 'next')).toBe('next')
  })
})
