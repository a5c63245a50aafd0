import { once } from 'node:events'
import type { AddressInfo, Socket } from 'node:net'
import {
  createTCPServer,
  createUDPServer,
  type DnsHandler,
  Packet,
  type Question,
  type Resource,
  type TCPServer,
  type UDPServer,
} from 'dns2'

type DnsRecordValues = {
  A: string
  AAAA: string
  MX: { exchange: string; priority: number }
  /** One TXT record: a string, or its character-strings when the split matters. */
  TXT: string | string[]
  NS: string
  CNAME: string
}

type DnsRecordType = keyof DnsRecordValues

type DnsRecordSet = { [T in DnsRecordType]?: readonly DnsRecordValues[T][] }

/** Zone contents keyed by name, e.g. `{ 'example.com': { MX: [{ exchange: 'mx.example.com', priority: 10 }] } }`. */
export type DnsRecords = Record<string, DnsRecordSet>

type DnsQuery = { name: string; type: string }

export type TestDnsServer = {
  port: number
  /** `127.0.0.1:PORT`, the format of the DNS_SERVERS setting and `Resolver.setServers`. */
  address: string
  /** Every question received, over UDP and TCP, in arrival order. */
  queries: DnsQuery[]
  set: <T extends DnsRecordType>(name: string, type: T, values: readonly DnsRecordValues[T][]) => void
  /** Without `type`, removes the name entirely so it answers NXDOMAIN again. */
  remove: (name: string, type?: DnsRecordType) => void
  clear: () => void
  close: () => Promise<void>
}

// Records change between assertions in a test; a TTL of 0 keeps resolvers from caching stale answers.
const TTL_SECONDS = 0
const MAX_CHARACTER_STRING_BYTES = 255
const MAX_CNAME_HOPS = 8
const BIND_ATTEMPTS = 20
const HOST = '127.0.0.1'

type Zone = Map<string, DnsRecordSet>

export async function startDnsServer(records: DnsRecords = {}): Promise<TestDnsServer> {
  const zone: Zone = new Map()
  const queries: DnsQuery[] = []
  for (const [name, set] of Object.entries(records)) zone.set(normalizeName(name), { ...set })

  const handle: DnsHandler = (request, send) => {
    const response = answer(zone, request, queries)
    // A client that gave up (or a socket closed during teardown) must not crash the test run.
    send(response).catch(() => undefined)
  }
  const { udp, tcp, sockets, port } = await bindSamePort(handle)

  return {
    port,
    address: `${HOST}:${port}`,
    queries,
    set: (name, type, values) => setRecords(zone, name, type, values),
    remove: (name, type) => removeRecords(zone, name, type),
    clear: () => zone.clear(),
    close: () => closeServers(udp, tcp, sockets),
  }
}

function normalizeName(name: string): string {
  return name.toLowerCase().replace(/\.+$/, '')
}

function setRecords<T extends DnsRecordType>(
  zone: Zone,
  name: string,
  type: T,
  values: readonly DnsRecordValues[T][],
): void {
  const key = normalizeName(name)
  zone.set(key, { ...zone.get(key), [type]: [...values] })
}

function removeRecords(zone: Zone, name: string, type: DnsRecordType | undefined): void {
  const key = normalizeName(name)
  const set = zone.get(key)
  if (!set) return
  if (type === undefined) {
    zone.delete(key)
    return
  }
  const { [type]: _removed, ...rest } = set
  zone.set(key, rest)
}

function answer(zone: Zone, request: Packet, queries: DnsQuery[]): Packet {
  const response = Packet.createResponseFromRequest(request)
  response.header.aa = 1
  for (const question of request.questions) {
    queries.push({ name: normalizeName(question.name), type: Packet.typeName(question.type) })
    const answers = resolveQuestion(zone, question)
    if (answers === undefined) response.header.rcode = Packet.RCODE.NXDOMAIN
    else response.answers.push(...answers)
  }
  return response
}

/** Returns undefined when the name does not exist (NXDOMAIN); an empty list is NODATA. */
function resolveQuestion(zone: Zone, question: Question): Resource[] | undefined {
  const type = Packet.typeName(question.type)
  const answers: Resource[] = []
  let name = question.name
  for (let hop = 0; hop < MAX_CNAME_HOPS; hop++) {
    const set = zone.get(normalizeName(name))
    if (!set) return hop === 0 ? undefined : answers
    if (isRecordType(type) && set[type]) {
      answers.push(...toResources(name, type, set))
      return answers
    }
    // Like a real server, follow an alias within our own zone so resolve4() on a CNAME'd name works.
    const target = set.CNAME?.[0]
    if (target === undefined || type === 'CNAME') return answers
    answers.push(buildResource(name, Packet.TYPE.CNAME, { domain: target }))
    name = target
  }
  return answers
}

function isRecordType(type: string): type is DnsRecordType {
  return ['A', 'AAAA', 'MX', 'TXT', 'NS', 'CNAME'].includes(type)
}

function toResources(name: string, type: DnsRecordType, set: DnsRecordSet): Resource[] {
  switch (type) {
    case 'A':
    case 'AAAA':
      return (set[type] ?? []).map((address) => buildResource(name, Packet.TYPE[type], { address }))
    case 'MX':
      return (set.MX ?? []).map(({ exchange, priority }) => buildResource(name, Packet.TYPE.MX, { exchange, priority }))
    case 'TXT':
      return (set.TXT ?? []).map((value) => buildResource(name, Packet.TYPE.TXT, { data: splitTxt(value) }))
    case 'NS':
      return (set.NS ?? []).map((ns) => buildResource(name, Packet.TYPE.NS, { ns }))
    case 'CNAME':
      return (set.CNAME ?? []).map((domain) => buildResource(name, Packet.TYPE.CNAME, { domain }))
  }
}

function buildResource(name: string, type: number, rdata: Partial<Resource>): Resource {
  return new Packet.Resource({ name, type, class: Packet.CLASS.IN, ttl: TTL_SECONDS, ...rdata })
}

/**
 * A character-string carries at most 255 bytes (RFC 1035 §3.3) and dns2 writes its length in one byte
 * without checking, so a DKIM key must be split here. Splits fall between characters so a resolver
 * that decodes each piece as UTF-8 gets whole characters (node's hands the bytes back as latin1).
 */
function splitTxt(value: string | string[]): string[] {
  const strings = typeof value === 'string' ? [value] : value
  return strings.flatMap(splitCharacterString)
}

function splitCharacterString(text: string): string[] {
  const pieces: string[] = []
  let piece = ''
  let pieceBytes = 0
  for (const char of text) {
    const charBytes = Buffer.byteLength(char)
    if (pieceBytes + charBytes > MAX_CHARACTER_STRING_BYTES) {
      pieces.push(piece)
      piece = ''
      pieceBytes = 0
    }
    piece += char
    pieceBytes += charBytes
  }
  pieces.push(piece)
  return pieces
}

type BoundServers = { udp: UDPServer; tcp: TCPServer; sockets: Set<Socket>; port: number }

/**
 * Resolvers fall back to TCP on the same port when a UDP answer is truncated, so both must share it.
 * The UDP port is picked by the OS; if something already holds that port on TCP, try another one.
 */
async function bindSamePort(handle: DnsHandler): Promise<BoundServers> {
  let lastError: unknown
  for (let attempt = 0; attempt < BIND_ATTEMPTS; attempt++) {
    const udp = createUDPServer(handle)
    await bindUdp(udp)
    const port = portOf(udp.address())
    const tcp = createTCPServer(handle)
    try {
      await listenTcp(tcp, port)
      return { udp, tcp, sockets: trackSockets(tcp), port }
    } catch (err) {
      lastError = err
      await closeUdp(udp)
    }
  }
  throw new Error(`Could not bind UDP and TCP on the same port after ${BIND_ATTEMPTS} attempts`, { cause: lastError })
}

async function bindUdp(udp: UDPServer): Promise<void> {
  // dns2's listen() only resolves; a bind failure arrives as an 'error' event instead.
  const controller = new AbortController()
  const failed = once(udp, 'error', { signal: controller.signal }).then(([err]) => Promise.reject(err))
  try {
    await Promise.race([udp.listen(0, HOST), failed])
  } finally {
    controller.abort()
  }
}

async function listenTcp(tcp: TCPServer, port: number): Promise<void> {
  const listening = once(tcp, 'listening')
  tcp.listen(port, HOST)
  await listening
}

function trackSockets(tcp: TCPServer): Set<Socket> {
  const sockets = new Set<Socket>()
  tcp.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  return sockets
}

function portOf(address: AddressInfo | string | null): number {
  if (address === null || typeof address === 'string') {
    throw new Error(`DNS server is not listening on IP: ${address}`)
  }
  return address.port
}

function closeUdp(udp: UDPServer): Promise<void> {
  return new Promise((resolve) => udp.close(() => resolve()))
}

function closeTcp(tcp: TCPServer, sockets: Set<Socket>): Promise<void> {
  return new Promise((resolve, reject) => {
    tcp.close((err) => (err ? reject(err) : resolve()))
    // dns2 keeps TCP connections open for 10 s of idle time (RFC 7766); end them now.
    for (const socket of sockets) socket.destroy()
  })
}

async function closeServers(udp: UDPServer, tcp: TCPServer, sockets: Set<Socket>): Promise<void> {
  await Promise.all([closeUdp(udp), closeTcp(tcp, sockets)])
}
