/** `returnPathDomain`: the domain's verified MAIL FROM domain, for the transport's envelope sender. */
export type DkimSigningKey = { selector: string; privateKeyPem: string; returnPathDomain?: string }

/** Finds the key to sign a sender domain's mail with; undefined sends the email unsigned. */
export type ResolveDkimKey = (projectId: string, domain: string) => Promise<DkimSigningKey | undefined>

const keyTtlMs = 60_000

/**
 * A sender domain's DKIM key, looked up at most once a minute per project and domain (every email of a campaign
 * needs it); a changed key is used within the minute. A failed lookup is not remembered.
 */
export function cachedSigningKeys(resolve: ResolveDkimKey): ResolveDkimKey {
  const keys = new Map<string, { expiresAt: number; key: ReturnType<ResolveDkimKey> }>()
  return (projectId, domain) => {
    const cacheKey = `${projectId}\n${domain}`
    const cached = keys.get(cacheKey)
    if (cached && cached.expiresAt > Date.now()) return cached.key
    const key = resolve(projectId, domain)
    keys.set(cacheKey, { expiresAt: Date.now() + keyTtlMs, key })
    key.catch(() => keys.delete(cacheKey))
    return key
  }
}
