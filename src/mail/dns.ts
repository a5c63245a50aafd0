import { Resolver } from 'node:dns/promises'
import type { Config } from '../config.js'

type MxRecord = { exchange: string; priority: number }

/**
 * - `found`: the name has records of the type
 * - `empty`: the name exists but has none of the type (NODATA)
 * - `nxdomain`: the name does not exist
 * - `failed`: no usable answer (timeout, SERVFAIL, refused); says nothing about the name
 */
type DnsOutcome = 'found' | 'empty' | 'nxdomain' | 'failed'

export type DnsAnswer<T> = { outcome: DnsOutcome; records: T[] }

export type DnsResolver = {
  /** TXT records, each joined from its character-strings (a DKIM key spans several). */
  txt(name: string): Promise<DnsAnswer<string>>
  mx(name: string): Promise<DnsAnswer<MxRecord>>
  ns(name: string): Promise<DnsAnswer<string>>
  a(name: string): Promise<DnsAnswer<string>>
  aaaa(name: string): Promise<DnsAnswer<string>>
}

export type ResolverOptions = {
  /** Upper bound for one lookup, retries included. */
  timeoutMs?: number
  /** How long a definitive answer is reused; 0 asks the servers every time (domain verification). */
  cacheTtlMs?: number
  cacheMaxEntries?: number
}

const defaultTimeoutMs = 3_000
const defaultCacheTtlMs = 60_000
const defaultCacheMaxEntries = 10_000

type CacheEntry = { expiresAt: number; answer: Promise<DnsAnswer<unknown>> }

/** Every DNS lookup of the service goes through here, so DNS_SERVERS (and tests' local server) apply to all. */
export function createResolver(config: Pick<Config, 'dnsServers'>, options: ResolverOptions = {}): DnsResolver {
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs
  const cacheTtlMs = options.cacheTtlMs ?? defaultCacheTtlMs
  const cacheMaxEntries = options.cacheMaxEntries ?? defaultCacheMaxEntries
  // c-ares retries on its own; two tries of half the budget keep the total near timeoutMs.
  const resolver = new Resolver({ timeout: Math.max(1, Math.floor(timeoutMs / 2)), tries: 2 })
  if (config.dnsServers.length > 0) resolver.setServers([...config.dnsServers])
  const cache = new Map<string, CacheEntry>()

  function lookup<T>(type: string, name: string, query: (name: string) => Promise<T[]>): Promise<DnsAnswer<T>> {
    const normalized = name.toLowerCase().replace(/\.+$/, '')
    if (cacheTtlMs <= 0) return withTimeout(query(normalized), timeoutMs)
    const key = `${type} ${normalized}`
    const now = Date.now()
    const cached = cache.get(key)
    if (cached && cached.expiresAt > now) return cached.answer as Promise<DnsAnswer<T>>
    const answer = withTimeout(query(normalized), timeoutMs)
    cache.delete(key)
    if (cache.size >= cacheMaxEntries) {
      const oldest = cache.keys().next().value
      if (oldest !== undefined) cache.delete(oldest)
    }
    cache.set(key, { expiresAt: now + cacheTtlMs, answer })
    // A failure says nothing about the name; forget it so the next caller asks again.
    void answer.then((result) => {
      if (result.outcome === 'failed' && cache.get(key)?.answer === answer) cache.delete(key)
    })
    return answer
  }

  return {
    txt: (name) => lookup('TXT', name, async (n) => (await resolver.resolveTxt(n)).map((chunks) => chunks.join(''))),
    // Node 24 adds a `type` member to each MX record; keep the shape the same on every version.
    mx: (name) =>
      lookup('MX', name, async (n) =>
        (await resolver.resolveMx(n)).map(({ exchange, priority }) => ({ exchange, priority })),
      ),
    ns: (name) => lookup('NS', name, (n) => resolver.resolveNs(n)),
    a: (name) => lookup('A', name, (n) => resolver.resolve4(n)),
    aaaa: (name) => lookup('AAAA', name, (n) => resolver.resolve6(n)),
  }
}

async function withTimeout<T>(query: Promise<T[]>, timeoutMs: number): Promise<DnsAnswer<T>> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<DnsAnswer<T>>((resolve) => {
    timer = setTimeout(() => resolve({ outcome: 'failed', records: [] }), timeoutMs)
  })
  const answer = query.then(
    (records): DnsAnswer<T> => ({ outcome: records.length > 0 ? 'found' : 'empty', records }),
    (err: unknown): DnsAnswer<T> => ({ outcome: outcomeOf(err), records: [] }),
  )
  try {
    return await Promise.race([answer, timeout])
  } finally {
    clearTimeout(timer)
  }
}

function outcomeOf(err: unknown): DnsOutcome {
  const code = err instanceof Error && 'code' in err ? String(err.code) : ''
  if (code === 'ENOTFOUND') return 'nxdomain'
  if (code === 'ENODATA') return 'empty'
  return 'failed'
}
