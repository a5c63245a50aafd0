import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A small S3-compatible server for tests: path-style PutObject, GetObject, HeadObject and DeleteObject on one
 * bucket, and every authenticated request checked with AWS Signature Version 4, computed here from the secret
 * (not by the SDK's own signer), so a request the SDK shaped or signed wrongly fails as it would at S3.
 * Unauthenticated GETs are served, as a public-read bucket does; that is what upload URLs point at.
 *
 * s3rver (the npm fake S3 server) was tried first: it accepts any V4 signature without checking it, and its
 * last release pins busboy 0.3, so it could not show that our requests would pass at a real S3.
 */
export type S3TestServer = {
  /** Endpoint for the SDK (`S3_ENDPOINT`), e.g. http://127.0.0.1:PORT */
  endpoint: string
  bucket: string
  /** The bucket's public base URL (`S3_PUBLIC_URL`). */
  publicUrl: string
  objects: Map<string, StoredObject>
  /** Every request, with whether its signature checked out. */
  requests: S3Request[]
  /** Makes the next requests fail with this status (a broken storage service); undefined restores normal service. */
  failWith(status: number | undefined): void
  close(): Promise<void>
}

type StoredObject = { body: Buffer; contentType: string | undefined; cacheControl: string | undefined }

type S3Request = { method: string; key: string; authenticated: boolean; signedHeaders: string[] }

export type S3Credentials = { accessKeyId: string; secretAccessKey: string; region: string }

const maxClockSkewMs = 15 * 60 * 1000

function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex')
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest()
}

/** RFC 3986 encoding, as SigV4 canonical query strings use. */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
}

function canonicalQuery(query: string): string {
  if (!query) return ''
  return query
    .split('&')
    .map((pair) => {
      const [name = '', value = ''] = pair.split('=')
      return [uriEncode(decodeURIComponent(name)), uriEncode(decodeURIComponent(value))] as const
    })
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&')
}

type SignatureCheck = { ok: true; signedHeaders: string[] } | { ok: false; code: string; message: string }

/** Verifies `Authorization: AWS4-HMAC-SHA256 ...` against the request as received. */
function verifySigV4(req: IncomingMessage, body: Buffer, credentials: S3Credentials): SignatureCheck {
  const authorization = req.headers.authorization ?? ''
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
      authorization,
    )
  if (!match) return { ok: false, code: 'AuthorizationHeaderMalformed', message: 'malformed Authorization header' }
  const [, accessKeyId, day, region, signedHeaderList = '', signature = ''] = match
  if (accessKeyId !== credentials.accessKeyId) {
    return { ok: false, code: 'InvalidAccessKeyId', message: 'unknown access key' }
  }
  if (region !== credentials.region) return { ok: false, code: 'AuthorizationHeaderMalformed', message: 'wrong region' }
  const amzDate = String(req.headers['x-amz-date'] ?? '')
  const dateMatch = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate)
  if (!dateMatch || amzDate.slice(0, 8) !== day) {
    return { ok: false, code: 'AccessDenied', message: 'missing or inconsistent x-amz-date' }
  }
  const [, y, mo, d, h, mi, s] = dateMatch
  const signedAt = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s))
  if (Math.abs(Date.now() - signedAt) > maxClockSkewMs) {
    return { ok: false, code: 'RequestTimeTooSkewed', message: 'request time too skewed' }
  }
  const signedHeaders = signedHeaderList.split(';')
  for (const required of ['host', 'x-amz-date', 'x-amz-content-sha256']) {
    if (!signedHeaders.includes(required)) {
      return { ok: false, code: 'AccessDenied', message: `${required} is not signed` }
    }
  }
  const payloadHash = String(req.headers['x-amz-content-sha256'] ?? '')
  if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256Hex(body)) {
    return { ok: false, code: 'XAmzContentSHA256Mismatch', message: 'payload hash does not match the body' }
  }
  const [path = '', query = ''] = (req.url ?? '').split('?')
  const canonicalHeaders = signedHeaders
    .map((name) => {
      const value = req.headers[name]
      const text = Array.isArray(value) ? value.join(',') : (value ?? '')
      return `${name}:${text.trim().replace(/\s+/g, ' ')}\n`
    })
    .join('')
  const canonicalRequest = [
    req.method,
    path,
    canonicalQuery(query),
    canonicalHeaders,
    signedHeaderList,
    payloadHash,
  ].join('\n')
  const scope = `${day}/${region}/s3/aws4_request`
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n')
  const signingKey = ['s3', 'aws4_request'].reduce(
    (key, part) => hmac(key, part),
    hmac(hmac(`AWS4${credentials.secretAccessKey}`, day ?? ''), region ?? ''),
  )
  const expected = createHmac('sha256', signingKey).update(stringToSign).digest()
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
    return { ok: false, code: 'SignatureDoesNotMatch', message: 'signature does not match' }
  }
  return { ok: true, signedHeaders }
}

function sendXmlError(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/xml' })
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`)
}

export async function startS3TestServer(credentials: S3Credentials, bucket = 'uploads'): Promise<S3TestServer> {
  const objects = new Map<string, StoredObject>()
  const requests: S3Request[] = []
  let failure: number | undefined

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const [path = ''] = (req.url ?? '').split('?')
    const prefix = `/${bucket}/`
    const key = path.startsWith(prefix) ? decodeURIComponent(path.slice(prefix.length)) : ''
    const method = req.method ?? ''
    const authenticated = req.headers.authorization !== undefined
    const check = authenticated ? verifySigV4(req, body, credentials) : undefined
    requests.push({
      method,
      key,
      authenticated: check?.ok === true,
      signedHeaders: check?.ok ? check.signedHeaders : [],
    })
    if (failure) return sendXmlError(res, failure, 'InternalError', 'storage failure for the test')
    if (!key) return sendXmlError(res, 404, 'NoSuchBucket', 'only path-style requests to the test bucket')
    if (check && !check.ok) return sendXmlError(res, 403, check.code, check.message)
    const object = objects.get(key)
    if (method === 'GET' || method === 'HEAD') {
      if (!object) return sendXmlError(res, 404, 'NoSuchKey', 'no such key')
      res.writeHead(200, {
        'content-length': object.body.length,
        ...(object.contentType ? { 'content-type': object.contentType } : {}),
        ...(object.cacheControl ? { 'cache-control': object.cacheControl } : {}),
      })
      return res.end(method === 'GET' ? object.body : undefined)
    }
    if (!check) return sendXmlError(res, 403, 'AccessDenied', 'writes need a signed request')
    if (method === 'PUT') {
      const contentType = req.headers['content-type']
      const cacheControl = req.headers['cache-control']
      objects.set(key, { body, contentType, cacheControl })
      res.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"` })
      return res.end()
    }
    if (method === 'DELETE') {
      objects.delete(key)
      res.writeHead(204)
      return res.end()
    }
    sendXmlError(res, 405, 'MethodNotAllowed', `${method} is not supported here`)
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => handle(req, res, Buffer.concat(chunks)))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    endpoint,
    bucket,
    publicUrl: `${endpoint}/${bucket}`,
    objects,
    requests,
    failWith(status) {
      failure = status
    },
    close: () =>
      new Promise((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()))
        server.closeAllConnections()
      }),
  }
}
