import { describe, expect, it } from 'vitest'
import { isConnectionLost } from '../../src/db/connection-loss.js'

/** A `pg` DatabaseError as the driver builds it: a message and a SQLSTATE. */
const databaseError = (code: string, message = 'from the server') => Object.assign(new Error(message), { code })
const socketError = (code: string, syscall: string) => Object.assign(new Error(`${syscall} ${code}`), { code, syscall })
/** drizzle wraps what the driver threw. */
const wrapped = (cause: unknown) => new Error('Failed query: select 1', { cause })

describe('isConnectionLost', () => {
  it.each([
    ['a restart or pg_terminate_backend (57P01)', databaseError('57P01')],
    ['a crash of another backend (57P02)', databaseError('57P02')],
    ['a server still starting (57P03)', databaseError('57P03')],
    ['too many connections (53300)', databaseError('53300')],
    ['a connection exception (08006)', databaseError('08006')],
    ['a refused connection', socketError('ECONNREFUSED', 'connect')],
    ['a reset connection', socketError('ECONNRESET', 'read')],
    ['a write to a closed socket', socketError('EPIPE', 'write')],
    ['a Unix socket a stopped server removed', socketError('ENOENT', 'connect')],
    ['a connection that ended', new Error('Connection terminated unexpectedly')],
    ['a pool that could not connect in time', new Error('timeout exceeded when trying to connect')],
    ['a client whose connection failed', new Error('Client has encountered a connection error and is not queryable')],
    ['a query wrapped by drizzle', wrapped(databaseError('57P01'))],
    ['every address of a connect refused', new AggregateError([socketError('ECONNREFUSED', 'connect')])],
  ])('is true for %s', (_name, err) => {
    expect(isConnectionLost(err)).toBe(true)
  })

  it.each([
    ['a unique violation', databaseError('23505')],
    ['a syntax error', databaseError('42601')],
    ['a missing file', socketError('ENOENT', 'open')],
    ['a wrapped unique violation', wrapped(databaseError('23505'))],
    ['a plain error', new Error('something else')],
    ['not an error', 'Connection terminated'],
    ['nothing', undefined],
  ])('is false for %s', (_name, err) => {
    expect(isConnectionLost(err)).toBe(false)
  })
})
