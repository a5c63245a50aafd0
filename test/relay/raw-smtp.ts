import { once } from 'node:events'
import net from 'node:net'
import tls from 'node:tls'

/**
 * A client that writes exactly what a test says, for what no honest client does (floods, early talk, leaving
 * mid-DATA). `reply()` resolves with the next complete reply, its lines joined by "\n".
 */
export type RawSmtp = {
  write(data: string | Buffer): void
  reply(): Promise<string>
  /** Resolves when the server has closed the connection. */
  closed: Promise<void>
  /** Switches to TLS after the 220 to STARTTLS. */
  startTls(): Promise<tls.TLSSocket>
  destroy(): void
}

export async function connectRaw(port: number, options: { implicitTls: boolean }): Promise<RawSmtp> {
  let socket: net.Socket = options.implicitTls
    ? tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false })
    : net.connect({ host: '127.0.0.1', port })
  await once(socket, options.implicitTls ? 'secureConnect' : 'connect')
  let pending = ''
  const replies: string[] = []
  const waiters: ((reply: string) => void)[] = []
  let lines: string[] = []
  const onData = (chunk: Buffer) => {
    pending += chunk.toString('latin1')
    for (let end = pending.indexOf('\r\n'); end !== -1; end = pending.indexOf('\r\n')) {
      const line = pending.slice(0, end)
      pending = pending.slice(end + 2)
      lines.push(line)
      if (/^\d{3}(?: |$)/.test(line)) {
        const reply = lines.join('\n')
        lines = []
        const waiter = waiters.shift()
        if (waiter) waiter(reply)
        else replies.push(reply)
      }
    }
  }
  socket.on('data', onData)
  socket.on('error', () => {})
  let markClosed = () => {}
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve
  })
  socket.on('close', () => markClosed())
  const raw: RawSmtp = {
    write: (data) => socket.write(data),
    reply: () => {
      const reply = replies.shift()
      if (reply !== undefined) return Promise.resolve(reply)
      return new Promise((resolve) => waiters.push(resolve))
    },
    closed,
    async startTls() {
      raw.write('STARTTLS\r\n')
      const ready = await raw.reply()
      if (!ready.startsWith('220')) throw new Error(`STARTTLS refused: ${ready}`)
      socket.off('data', onData)
      const secured = tls.connect({ socket, rejectUnauthorized: false, servername: 'relay.test' })
      await once(secured, 'secureConnect')
      secured.on('data', onData)
      secured.on('error', () => {})
      secured.on('close', () => markClosed())
      socket = secured
      return secured
    },
    destroy: () => socket.destroy(),
  }
  return raw
}

/** Greeting and EHLO, then AUTH PLAIN: the state from which a test floods or misbehaves. */
export async function loggedIn(port: number, password: string): Promise<RawSmtp> {
  const raw = await connectRaw(port, { implicitTls: true })
  await raw.reply()
  raw.write('EHLO client.test\r\n')
  await raw.reply()
  raw.write(`AUTH PLAIN ${Buffer.from(`\0plunk\0${password}`).toString('base64')}\r\n`)
  const auth = await raw.reply()
  if (!auth.startsWith('235')) throw new Error(`login refused: ${auth}`)
  return raw
}

/** The SHA-256 fingerprint of the certificate a new connection is shown, on either listener. */
export async function servedFingerprint(port: number, security: 'starttls' | 'implicit'): Promise<string> {
  if (security === 'implicit') {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, servername: 'relay.test' })
    try {
      await once(socket, 'secureConnect')
      return socket.getPeerCertificate().fingerprint256
    } finally {
      socket.destroy()
    }
  }
  const raw = await connectRaw(port, { implicitTls: false })
  try {
    await raw.reply()
    raw.write('EHLO client.test\r\n')
    await raw.reply()
    return (await raw.startTls()).getPeerCertificate().fingerprint256
  } finally {
    raw.destroy()
  }
}
