import { createTransport } from 'nodemailer'
import { describe, expect, it, vi } from 'vitest'
import { goodKey, startRelay } from './harness.js'
import { buildMessage } from './messages.js'
import { connectRaw, loggedIn } from './raw-smtp.js'

// Sent by a raw client that does not dot-stuff: no line may start with a dot.
const message = buildMessage({ text: ['Hello'] })

describe('clients that misbehave', () => {
  it('stores nothing from a client that leaves in the middle of DATA', async () => {
    const relay = await startRelay()
    const raw = await loggedIn(relay.tlsPort, goodKey)
    raw.write('MAIL FROM:<app@sender.test>\r\nRCPT TO:<user@example.com>\r\nDATA\r\n')
    expect(await raw.reply()).toMatch(/^250 /)
    expect(await raw.reply()).toMatch(/^250 /)
    expect(await raw.reply()).toMatch(/^354 /)
    raw.write(message.subarray(0, 4096))
    raw.destroy()
    await vi.waitFor(() =>
      expect(relay.log.lines()).toContainEqual(
        expect.objectContaining({ msg: 'SMTP relay: a message did not arrive in full; nothing stored' }),
      ),
    )
    expect(relay.recorder.accepted()).toEqual([])
  })

  it('cuts off a DATA that never ends with 421 once its deadline passes, however steadily it trickles', async () => {
    const relay = await startRelay({ dataTimeoutMs: 400, idleTimeoutMs: 10_000 })
    const raw = await loggedIn(relay.tlsPort, goodKey)
    raw.write('MAIL FROM:<app@sender.test>\r\nRCPT TO:<user@example.com>\r\nDATA\r\n')
    await raw.reply()
    await raw.reply()
    expect(await raw.reply()).toMatch(/^354 /)
    raw.write('Subject: slow\r\n\r\n')
    // A line every 20 ms keeps the idle timeout from ever firing.
    const trickle = setInterval(() => raw.write('still going\r\n'), 20)
    try {
      expect(await raw.reply()).toBe('421 4.4.2 The message took too long to arrive')
      await raw.closed
    } finally {
      clearInterval(trickle)
    }
    expect(relay.recorder.accepted()).toEqual([])
  })

  it('closes an idle connection with 421', async () => {
    const relay = await startRelay({ idleTimeoutMs: 200 })
    const raw = await connectRaw(relay.starttlsPort, { implicitTls: false })
    expect(await raw.reply()).toMatch(/^220 relay\.test ESMTP/)
    expect(await raw.reply()).toMatch(/^421 /)
    await raw.closed
  })

  it('answers 10,000 pipelined RCPT TO with 452 past the limit and cuts the client off with 421', async () => {
    const relay = await startRelay({ maxRecipients: 3 })
    const raw = await loggedIn(relay.tlsPort, goodKey)
    const rcpts = Array.from({ length: 10_000 }, (_, index) => `RCPT TO:<r${index}@example.com>\r\n`)
    raw.write(`MAIL FROM:<app@sender.test>\r\n${rcpts.join('')}DATA\r\n`)
    const replies: string[] = []
    for (let reply = await raw.reply(); ; reply = await raw.reply()) {
      replies.push(reply)
      if (reply.startsWith('421')) break
    }
    await raw.closed
    expect(replies[0]).toMatch(/^250 /)
    expect(replies.slice(1, 4).every((reply) => reply.startsWith('250 '))).toBe(true)
    expect(replies.slice(4, -1).every((reply) => reply === '452 4.5.3 Too many recipients (at most 3 a message)')).toBe(
      true,
    )
    expect(replies.length).toBe(1 + 3 + 1_000 + 1)
    expect(replies.at(-1)).toBe('421 4.5.3 Too many RCPT TO commands in one message, closing the connection')
    expect(relay.recorder.stepsOf('checkRecipient')).toHaveLength(3)
    expect(relay.recorder.accepted()).toEqual([])
  })

  it('closes on a client that talks before the greeting', async () => {
    const relay = await startRelay()
    const raw = await connectRaw(relay.tlsPort, { implicitTls: true })
    raw.write('EHLO early.test\r\nAUTH PLAIN AHBsdW5rAHg=\r\n')
    expect(await raw.reply()).toMatch(/^421 .*You talk too soon/)
    await raw.closed
    expect(relay.recorder.calls).toEqual([])
  })
})

describe('closing', () => {
  it('answers 250 only after accept resolves; a message being stored when the relay closes still gets it', async () => {
    const relay = await startRelay()
    const transport = createTransport({
      host: '127.0.0.1',
      port: relay.tlsPort,
      secure: true,
      auth: { user: 'plunk', pass: goodKey },
      tls: { ca: relay.certificate, servername: 'relay.test' },
    })
    const idle = await connectRaw(relay.starttlsPort, { implicitTls: false })
    await idle.reply()
    const held = relay.recorder.holdAccept()
    let answered = false
    const sending = transport
      .sendMail({ envelope: { from: 'app@sender.test', to: ['user@example.com'] }, raw: message })
      .finally(() => {
        answered = true
      })
    await held.waiting
    const closing = relay.close()
    // An idle connection has nothing in flight: it is told at once.
    expect(await idle.reply()).toBe('421 4.3.2 Server shutting down')
    expect(answered).toBe(false)
    held.release()
    expect((await sending).response).toMatch(/^250 2\.0\.0 Queued as /)
    await closing
    transport.close()
  })
})
