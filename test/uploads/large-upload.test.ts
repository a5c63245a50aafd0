import { connect, type Socket } from 'node:net'
import { setTimeout as delay } from 'node:timers/promises'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Account, createAccount } from '../helpers/factories.js'
import { startTestServer, type TestServer } from '../helpers/server.js'
import { errorBody, expectNothingStored, postImage } from './upload-helpers.js'

const megabyte = 1024 * 1024

// A full collection before each measure, so what is counted is what is held, not garbage not yet collected.
setFlagsFromString('--expose-gc')
const collectGarbage = runInNewContext('gc') as () => void

/**
 * Bytes of Buffer memory still referenced after full collections. V8 frees the memory of collected buffers
 * on another thread, so it collects twice with a pause between, or garbage could be counted as held.
 */
async function heldBufferBytes(): Promise<number> {
  collectGarbage()
  await delay(20)
  collectGarbage()
  return process.memoryUsage().arrayBuffers
}
const boundary = '----mailroom-large-upload'

let server: TestServer
let account: Account

beforeAll(async () => {
  server = await startTestServer({ worker: false })
  account = await createAccount(server)
})
afterAll(async () => {
  await server.close()
})

type RawAnswer = { status: number; headers: Record<string, string>; body: string; bytesSentBefore: number }

/** Reads one HTTP response off the socket; resolves once its whole body (Content-Length) is in. */
function readResponse(socket: Socket, sent: () => number): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0)
    let bytesSentBefore: number | undefined
    const onData = (chunk: Buffer) => {
      bytesSentBefore ??= sent()
      received = Buffer.concat([received, chunk])
      const headerEnd = received.indexOf('\r\n\r\n')
      if (headerEnd < 0) return
      const [statusLine = '', ...lines] = received.subarray(0, headerEnd).toString('latin1').split('\r\n')
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      )
      const body = received.subarray(headerEnd + 4)
      if (body.length < Number(headers['content-length'])) return
      socket.off('data', onData)
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: body.toString('utf8'), bytesSentBefore })
    }
    socket.on('data', onData)
    // A write after the server hung up fails with EPIPE; what matters is whether the answer arrived first.
    socket.on('error', () => {})
    socket.once('close', () => reject(new Error(`connection closed without a whole answer: ${received} ${sent()}`)))
  })
}

function requestHead(extra: string[]): string {
  return [
    'POST /uploads/image HTTP/1.1',
    'Host: 127.0.0.1',
    `Authorization: Bearer ${account.secretKey}`,
    `Content-Type: multipart/form-data; boundary=${boundary}`,
    ...extra,
    '',
    '',
  ].join('\r\n')
}

const partHead = Buffer.from(
  `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="huge.png"\r\nContent-Type: image/png\r\n\r\n`,
)

const tooLargeBody = errorBody('PAYLOAD_TOO_LARGE', 413, {
  message: 'The image is larger than the 10 MB accepted',
  details: { maxBytes: 10 * megabyte },
})

describe('a 50 MB upload', () => {
  it('streamed without a length is refused with 413 soon after 10 MB, without the server holding 50 MB', async () => {
    const { port } = new URL(server.url)
    const socket = connect(Number(port), '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    let sent = 0
    const answer = readResponse(socket, () => sent)
    let answered = false
    void answer.then(
      () => {
        answered = true
      },
      () => {},
    )

    const baseline = await heldBufferBytes()
    socket.write(requestHead(['Transfer-Encoding: chunked']))
    const chunk = Buffer.alloc(64 * 1024, 0x41)
    const writeChunk = (data: Buffer) =>
      new Promise<void>((resolve) => {
        socket.write(`${data.length.toString(16)}\r\n`)
        socket.write(data)
        const flushed = socket.write('\r\n')
        sent += data.length
        if (flushed) resolve()
        else socket.once('drain', resolve)
      })
    await writeChunk(partHead)
    while (sent < 50 * megabyte && !answered && !socket.destroyed) {
      await Promise.race([writeChunk(chunk), answer.catch(() => {})])
    }
    const response = await answer
    const heldAtAnswer = (await heldBufferBytes()) - baseline
    // The rest of the 50 MB goes too: the server reads and discards it without holding it.
    let heldNearTheEnd = 0
    while (sent < 50 * megabyte && !socket.destroyed) {
      await writeChunk(chunk)
      if (!heldNearTheEnd && sent > 45 * megabyte) heldNearTheEnd = (await heldBufferBytes()) - baseline
    }

    expect(response.status).toBe(413)
    expect(JSON.parse(response.body)).toEqual(tooLargeBody)
    // The answer came while the client was still sending, about when the 10 MB limit was passed.
    expect(response.bytesSentBefore).toBeLessThan(25 * megabyte)
    expect(sent).toBeGreaterThanOrEqual(50 * megabyte)
    // Buffers the process still references (server and this client): far from the 10 MB, let alone 45 MB.
    expect(heldAtAnswer).toBeLessThan(5 * megabyte)
    expect(heldNearTheEnd).toBeLessThan(5 * megabyte)
    socket.destroy()
    await expectNothingStored(server, account)
  })

  it('with a Content-Length of 50 MB is refused with 413 before any of the body is sent', async () => {
    const { port } = new URL(server.url)
    const socket = connect(Number(port), '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    const answer = readResponse(socket, () => 0)
    socket.write(requestHead([`Content-Length: ${50 * megabyte}`]))
    const response = await answer
    expect(response.status).toBe(413)
    expect(JSON.parse(response.body)).toEqual(tooLargeBody)
    socket.destroy()
    await expectNothingStored(server, account)
  })
})

describe('UPLOAD_MAX_BYTES', () => {
  it('sets the limit: one byte over is 413, at the limit the file is read (and here refused as not an image)', async () => {
    const small = await startTestServer({
      worker: false,
      config: { uploads: { maxBytes: 100_000, maxPixels: 1_000_000 } },
    })
    try {
      const owner = await createAccount(small)
      const over = await postImage(small, owner, Buffer.alloc(100_001, 0x41))
      expect(over.statusCode).toBe(413)
      expect(over.json()).toEqual(
        errorBody('PAYLOAD_TOO_LARGE', 413, {
          message: 'The image is larger than the 100000 bytes accepted',
          details: { maxBytes: 100_000 },
        }),
      )
      const at = await postImage(small, owner, Buffer.alloc(100_000, 0x41))
      expect(at.statusCode).toBe(415)
      await expectNothingStored(small, owner)
    } finally {
      await small.close()
    }
  })
})
