import { describe, expect, it } from 'vitest'
import { signLinkToken, verifyLinkToken } from '../../src/mail/signed-links.js'

const secret = 'a-secret-of-more-than-thirty-two-characters'
const parts = ['5f0c2a9e-8a51-4f0e-9d4e-0a1b2c3d4e5f', 'https://example.com/pricing?a=1&b=2']

describe('signed link tokens', () => {
  it('round-trips the signed parts and is URL-safe', () => {
    const token = signLinkToken(secret, 'click', parts)
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
    expect(verifyLinkToken(secret, 'click', token)).toEqual(parts)
  })

  it('rejects a token that was altered, minted for another purpose or with another secret', () => {
    const token = signLinkToken(secret, 'unsubscribe', parts)
    const [payload, mac] = token.split('.')
    const otherPayload = Buffer.from(`${parts[0]}\nhttps://evil.example`).toString('base64url')
    expect(verifyLinkToken(secret, 'unsubscribe', `${otherPayload}.${mac}`)).toBeUndefined()
    expect(verifyLinkToken(secret, 'unsubscribe', `${payload}.${mac?.slice(0, -2)}AA`)).toBeUndefined()
    // Every other spelling of the last character, including those that decode to the same bytes.
    const last = mac?.at(-1)
    for (const other of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.replace(last ?? '', '')) {
      expect(verifyLinkToken(secret, 'unsubscribe', `${payload}.${mac?.slice(0, -1)}${other}`), other).toBeUndefined()
    }
    expect(verifyLinkToken(secret, 'subscribe', token)).toBeUndefined()
    expect(verifyLinkToken(`${secret}!`, 'unsubscribe', token)).toBeUndefined()
    for (const garbage of ['', '.', 'abc', 'a.b.c', `${payload}.`]) {
      expect(verifyLinkToken(secret, 'unsubscribe', garbage), garbage).toBeUndefined()
    }
  })
})
