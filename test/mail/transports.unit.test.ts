import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SESv2Client } from '@aws-sdk/client-sesv2'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSesTransport } from '../../src/mail/transports/ses.js'
import { createSmtpTransport } from '../../src/mail/transports/smtp.js'
import { type OutgoingMessage, TransportError } from '../../src/mail/transports/transport.js'
import { unusedPort } from '../helpers/emails.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'

const message: OutgoingMessage = {
  projectId: '00000000-0000-4000-8000-000000000001',
  emailId: '00000000-0000-4000-8000-000000000002',
  messageId: 'm1@mail.example.test',
  envelope: { from: 'news@mail.example.test', to: ['reader@example.org'] },
  subject: 'Hi',
  raw: Buffer.from('From: news@mail.example.test\r\nTo: reader@example.org\r\nSubject: Hi\r\n\r\nHello\r\n'),
}

async function failure(promise: Promise<unknown>): Promise<TransportError> {
  const err = await promise.then(
    () => undefined,
    (error: unknown) => error,
  )
  if (!(err instanceof TransportError)) throw new Error(`expected a TransportError, got ${String(err)}`)
  return err
}

describe('the SMTP transport', () => {
  let sink: SmtpSink

  beforeAll(async () => {
    sink = await startSmtpSink({
      failWith: (rcpt) =>
        rcpt.startsWith('gone@')
          ? { code: 550, message: 'No such user' }
          : rcpt.startsWith('later@')
            ? { code: 452, message: 'Mailbox full' }
            : undefined,
    })
  })
  afterAll(() => sink.close())

  it('sends the raw bytes with the given envelope', async () => {
    const transport = createSmtpTransport(sink.url)
    await expect(transport.send(message)).resolves.toEqual({
      providerMessageId: 'm1@mail.example.test',
      response: '250 OK: message queued',
    })
    await transport.close()
    const [received] = await sink.waitForMessages(1)
    expect(received?.raw.equals(message.raw)).toBe(true)
    expect(received?.envelope).toEqual(message.envelope)
  })

  it('reports a 5xx refusal as permanent and a 4xx one as temporary', async () => {
    const transport = createSmtpTransport(sink.url)
    const gone = await failure(
      transport.send({ ...message, envelope: { ...message.envelope, to: ['gone@example.org'] } }),
    )
    const later = await failure(
      transport.send({ ...message, envelope: { ...message.envelope, to: ['later@example.org'] } }),
    )
    await transport.close()
    expect([gone.permanent, gone.code, gone.bounce]).toEqual([true, '550', true])
    expect([later.permanent, later.code, later.bounce]).toEqual([false, '452', false])
  })

  it('reports a refused connection as temporary', async () => {
    const transport = createSmtpTransport(`smtp://127.0.0.1:${await unusedPort()}`)
    const err = await failure(transport.send(message))
    await transport.close()
    expect(err.permanent).toBe(false)
  })
})

describe('the SES transport', () => {
  let server: Server
  let endpoint: string
  const requests: { path: string; body: { Content?: { Raw?: { Data?: string } } } }[] = []
  let reply: { status: number; type?: string; body: object } = { status: 200, body: { MessageId: 'ses-1' } }

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        requests.push({ path: request.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString() || '{}') })
        response.writeHead(reply.status, {
          'content-type': 'application/json',
          ...(reply.type ? { 'x-amzn-errortype': reply.type } : {}),
        })
        response.end(JSON.stringify(reply.body))
      })
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const transport = () =>
    createSesTransport({
      client: new SESv2Client({
        endpoint,
        region: 'eu-west-1',
        maxAttempts: 1,
        credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
      }),
    })

  it('sends the raw message and returns the SES message id', async () => {
    reply = { status: 200, body: { MessageId: 'ses-1' } }
    await expect(transport().send(message)).resolves.toEqual({ providerMessageId: 'ses-1' })
    const request = requests.at(-1)
    expect(request?.path).toBe('/v2/email/outbound-emails')
    expect(Buffer.from(request?.body.Content?.Raw?.Data ?? '', 'base64').equals(message.raw)).toBe(true)
  })

  it('reports a rejected message as permanent', async () => {
    reply = { status: 400, type: 'MessageRejected', body: { message: 'Email address is not verified.' } }
    const err = await failure(transport().send(message))
    expect([err.permanent, err.code]).toEqual([true, 'MessageRejected'])
  })

  it('reports throttling and server errors as temporary', async () => {
    reply = { status: 429, type: 'TooManyRequestsException', body: { message: 'Maximum sending rate exceeded.' } }
    expect((await failure(transport().send(message))).permanent).toBe(false)
    reply = { status: 503, type: 'ServiceUnavailable', body: { message: 'Try later' } }
    expect((await failure(transport().send(message))).permanent).toBe(false)
  })

  it('refuses a message over 40 MB without calling SES', async () => {
    const before = requests.length
    const err = await failure(transport().send({ ...message, raw: Buffer.alloc(40 * 1024 * 1024 + 1) }))
    expect(err.permanent).toBe(true)
    expect(requests.length).toBe(before)
  })
})
