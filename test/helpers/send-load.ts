import { expect, vi } from 'vitest'
import type { SmtpSink } from './smtp-sink.js'

/** What one `/v1/send` got: a status and body, or the socket error of a dropped connection. */
export type SendOutcome = { recipient: string; at: number } & (
  | { status: number; body: unknown }
  | { socketError: string }
)

export type SendLoad = {
  outcomes: SendOutcome[]
  /** Resolves once `count` sends were answered 2xx after `since` (Date.now()). */
  waitForAccepted(since: number, count: number, timeoutMs?: number): Promise<void>
  /** Resolves once `count` sends were answered at all (or not) after `since`. */
  waitForAnswers(since: number, count: number, timeoutMs?: number): Promise<void>
  stop(): Promise<void>
}

const isAccepted = (outcome: SendOutcome) => 'status' in outcome && outcome.status >= 200 && outcome.status < 300

/** `concurrency` clients sending one email each after another, each to a recipient of its own, until stopped. */
export function startSendLoad(base: string, secretKey: string, from: string, concurrency: number): SendLoad {
  const outcomes: SendOutcome[] = []
  let stopped = false
  let sent = 0
  const client = async () => {
    while (!stopped) {
      const recipient = `reader${sent++}@example.org`
      try {
        const response = await fetch(`${base}/v1/send`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${secretKey}` },
          body: JSON.stringify({ from, to: recipient, subject: 'Your sign-in code', body: '<p>123456</p>' }),
        })
        outcomes.push({ recipient, at: Date.now(), status: response.status, body: await response.json() })
      } catch (err) {
        outcomes.push({ recipient, at: Date.now(), socketError: String((err as Error).cause ?? err) })
      }
      // A refused connection answers at once: a short pause keeps a client from spinning on them.
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }
  const clients = Array.from({ length: concurrency }, client)
  const answeredSince = (since: number, accepted: boolean) =>
    outcomes.filter((outcome) => outcome.at > since && (!accepted || isAccepted(outcome))).length
  const waitFor = (since: number, count: number, accepted: boolean, timeoutMs: number) =>
    vi.waitFor(() => expect(answeredSince(since, accepted)).toBeGreaterThanOrEqual(count), {
      timeout: timeoutMs,
      interval: 20,
    })
  return {
    outcomes,
    waitForAccepted: (since, count, timeoutMs = 10_000) => waitFor(since, count, true, timeoutMs),
    waitForAnswers: (since, count, timeoutMs = 10_000) => waitFor(since, count, false, timeoutMs),
    async stop() {
      stopped = true
      await Promise.all(clients)
    },
  }
}

/**
 * What a user of the API saw under `load` while the database went away and came back: no dropped connection, and
 * every refusal the standard error body of a 503.
 */
export function expectStandardRefusals(load: SendLoad): SendOutcome[] {
  expect(load.outcomes.filter((outcome) => 'socketError' in outcome)).toEqual([])
  const refused = load.outcomes.filter((outcome) => !isAccepted(outcome))
  for (const outcome of refused) {
    expect(outcome).toMatchObject({
      status: 503,
      body: {
        success: false,
        error: {
          code: 'SERVICE_UNAVAILABLE',
          message: 'The database is unavailable; try again shortly',
          statusCode: 503,
          requestId: expect.any(String),
        },
        timestamp: expect.any(String),
      },
    })
  }
  return refused
}

/**
 * The refusals as `expectStandardRefusals` checks them; and what the receiving server saw: every accepted email
 * exactly once (waiting up to `timeoutMs` for the last ones), a refused one at most once (its commit may have
 * reached the database just before the connection was lost). Returns the numbers of accepted and refused sends.
 */
export async function expectEveryAcceptedSendDeliveredOnce(
  load: SendLoad,
  sink: SmtpSink,
  timeoutMs: number,
): Promise<{ accepted: number; refused: number }> {
  const refused = expectStandardRefusals(load)
  const accepted = load.outcomes.filter(isAccepted).map((outcome) => outcome.recipient)
  const copies = () => {
    const byRecipient = new Map<string, number>()
    for (const message of sink.messages) {
      for (const to of message.envelope.to) byRecipient.set(to, (byRecipient.get(to) ?? 0) + 1)
    }
    return byRecipient
  }
  const deadline = Date.now() + timeoutMs
  while (accepted.some((recipient) => !copies().has(recipient)) && Date.now() < deadline) {
    await sink.waitForMessages(sink.messages.length + 1, Math.max(1, deadline - Date.now())).catch(() => {})
  }
  const received = copies()
  // Each recipient that did not get exactly one copy, with how many it got.
  const wrong = accepted.filter((recipient) => received.get(recipient) !== 1)
  expect(Object.fromEntries(wrong.map((recipient) => [recipient, received.get(recipient) ?? 0]))).toEqual({})
  expect(refused.filter((outcome) => (received.get(outcome.recipient) ?? 0) > 1)).toEqual([])
  return { accepted: accepted.length, refused: refused.length }
}
