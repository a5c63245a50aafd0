/**
 * The relay benchmark's SMTP clients, on a thread of their own so that their work (TLS, building messages) is
 * not on the relay's event loop: `connections` implicit-TLS connections, each logged in once and then sending one
 * message after another (MAIL FROM, RCPT TO and DATA pipelined, then the message), as a pooled app would. Each
 * message's accept latency runs from the last byte of its DATA (the final dot) to the reply.
 */
import { once } from 'node:events'
import tls from 'node:tls'
import { parentPort, workerData } from 'node:worker_threads'
import { relayBenchFrom, relayBenchMessage } from './relay-message.js'

export type ClientsSetup = { port: number; password: string; connections: number }
/** Sends messages `offset` to `offset + count - 1`, to `prefix-<index>@example.org`. */
export type ClientsRound = { offset: number; count: number; prefix: string }
export type ClientsResult = {
  /** End of DATA to the 250, per accepted message. */
  latenciesMs: number[]
  /** MAIL FROM, RCPT TO and DATA (pipelined) to the 354, per accepted message: the envelope's checks. */
  envelopeMs: number[]
  /** Messages not answered 250 (a refusal at any step, or a dropped connection). */
  errors: number
  firstError?: string
  elapsedMs: number
  /** CPU this thread used in the round: the clients' share of the machine. */
  clientCpuMs: number
}

type Connection = { send(data: string | Buffer): void; reply(): Promise<string>; close(): void }

async function connect(port: number): Promise<Connection> {
  // The benchmark's certificate is self-signed, made for the run; what is measured is the relay, not the PKI.
  const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false })
  await once(socket, 'secureConnect')
  // As nodemailer does: without it, Nagle holds the final dot back until the server's (delayed) ACK, 40 ms.
  socket.setNoDelay(true)
  let pending = ''
  let lines: string[] = []
  const replies: string[] = []
  const waiters: ((reply: string) => void)[] = []
  const deliver = (reply: string) => {
    const waiter = waiters.shift()
    if (waiter) waiter(reply)
    else replies.push(reply)
  }
  socket.on('data', (chunk: Buffer) => {
    pending += chunk.toString('latin1')
    for (let end = pending.indexOf('\r\n'); end !== -1; end = pending.indexOf('\r\n')) {
      const line = pending.slice(0, end)
      pending = pending.slice(end + 2)
      lines.push(line)
      if (/^\d{3}(?: |$)/.test(line)) {
        deliver(lines.join('\n'))
        lines = []
      }
    }
  })
  // A dropped connection answers every waiting step with a failure instead of leaving the round hanging.
  socket.on('close', () => {
    for (const waiter of waiters.splice(0)) waiter('000 connection closed')
  })
  socket.on('error', () => {})
  return {
    send: (data) => socket.write(data),
    reply: () => {
      const reply = replies.shift()
      if (reply !== undefined) return Promise.resolve(reply)
      if (socket.destroyed) return Promise.resolve('000 connection closed')
      return new Promise((resolve) => waiters.push(resolve))
    },
    close: () => socket.end('QUIT\r\n'),
  }
}

async function login(setup: ClientsSetup): Promise<Connection> {
  const connection = await connect(setup.port)
  const expect = async (code: string, step: string) => {
    const reply = await connection.reply()
    if (!reply.startsWith(code)) throw new Error(`${step}: ${reply}`)
  }
  await expect('220', 'greeting')
  connection.send('EHLO bench.client\r\n')
  await expect('250', 'EHLO')
  connection.send(`AUTH PLAIN ${Buffer.from(`\0mailroom\0${setup.password}`).toString('base64')}\r\n`)
  await expect('235', 'AUTH')
  return connection
}

const setup = workerData as ClientsSetup
const connections = await Promise.all(Array.from({ length: setup.connections }, () => login(setup)))

async function runRound(round: ClientsRound): Promise<ClientsResult> {
  const cpu = process.threadCpuUsage()
  const latenciesMs: number[] = []
  const envelopeMs: number[] = []
  let errors = 0
  let firstError: string | undefined
  const fail = (reply: string) => {
    errors++
    firstError ??= reply
  }
  let next = round.offset
  const end = round.offset + round.count
  const started = performance.now()
  await Promise.all(
    connections.map(async (connection) => {
      for (let index = next++; index < end; index = next++) {
        const recipient = `${round.prefix}-${index}@example.org`
        const message = relayBenchMessage(index, recipient)
        const envelopeStart = performance.now()
        connection.send(`MAIL FROM:<${relayBenchFrom}>\r\nRCPT TO:<${recipient}>\r\nDATA\r\n`)
        const [mail, rcpt, data] = [await connection.reply(), await connection.reply(), await connection.reply()]
        if (!data.startsWith('354')) {
          fail([mail, rcpt, data].find((reply) => !reply.startsWith('250')) ?? data)
          connection.send('RSET\r\n')
          await connection.reply()
          continue
        }
        const dataStart = performance.now()
        connection.send(message)
        connection.send('.\r\n')
        const endOfData = performance.now()
        const reply = await connection.reply()
        if (!reply.startsWith('250')) {
          fail(reply)
          continue
        }
        latenciesMs.push(performance.now() - endOfData)
        envelopeMs.push(dataStart - envelopeStart)
      }
    }),
  )
  const used = process.threadCpuUsage(cpu)
  return {
    latenciesMs,
    envelopeMs,
    errors,
    ...(firstError !== undefined && { firstError }),
    elapsedMs: performance.now() - started,
    clientCpuMs: (used.user + used.system) / 1000,
  }
}

parentPort?.on('message', (message: ClientsRound | 'close') => {
  if (message === 'close') {
    for (const connection of connections) connection.close()
    parentPort?.close()
    return
  }
  void runRound(message).then((result) => parentPort?.postMessage(result))
})
parentPort?.postMessage('ready')
