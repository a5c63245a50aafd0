import { execFileSync } from 'node:child_process'
import { sign } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  isAmazonSnsCertificateUrl,
  type SnsMessage,
  type SnsTrust,
  snsStringToSign,
  verifySnsSignature,
} from '../../src/mail/sns.js'

let dir: string
let certificate: string
let privateKey: string
let otherPrivateKey: string

function makeCertificate(name: string): { cert: string; key: string } {
  const keyFile = path.join(dir, `${name}.key`)
  const certFile = path.join(dir, `${name}.pem`)
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
    ],
    {
      stdio: 'ignore',
    },
  )
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') }
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'mailroom-sns-'))
  const trusted = makeCertificate('sns-test')
  certificate = trusted.cert
  privateKey = trusted.key
  otherPrivateKey = makeCertificate('attacker').key
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const certificateUrl = 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-test.pem'
const trust: SnsTrust = {
  isTrustedCertificateUrl: isAmazonSnsCertificateUrl,
  fetchCertificate: async (url) => {
    if (url.toString() !== certificateUrl) throw new Error('unexpected certificate URL')
    return certificate
  },
}

function signed(overrides: Partial<SnsMessage> = {}, key = privateKey, version: '1' | '2' = '1'): SnsMessage {
  const message: SnsMessage = {
    Type: 'Notification',
    MessageId: '22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324',
    TopicArn: 'arn:aws:sns:eu-west-1:123456789012:ses-events',
    Subject: 'Amazon SES Email Event Notification',
    Message: JSON.stringify({ eventType: 'Delivery', mail: { messageId: 'abc' } }),
    Timestamp: '2026-11-22T05:00:00.000Z',
    SignatureVersion: version,
    Signature: '',
    SigningCertURL: certificateUrl,
    ...overrides,
  }
  const algorithm = version === '1' ? 'RSA-SHA1' : 'RSA-SHA256'
  return { ...message, Signature: sign(algorithm, Buffer.from(snsStringToSign(message)), key).toString('base64') }
}

describe('SNS signature verification', () => {
  it('accepts a notification signed with SignatureVersion 1 and 2 by the trusted certificate', async () => {
    expect(await verifySnsSignature(signed(), trust)).toBe(true)
    expect(await verifySnsSignature(signed({}, privateKey, '2'), trust)).toBe(true)
  })

  it('accepts a signed subscription confirmation, whose signed fields differ', async () => {
    const confirmation = signed({
      Type: 'SubscriptionConfirmation',
      Subject: undefined,
      Message: 'You have chosen to subscribe',
      SubscribeURL: 'https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&Token=t',
      Token: 't',
    })
    expect(await verifySnsSignature(confirmation, trust)).toBe(true)
  })

  it('rejects a tampered message, a foreign signature and garbage', async () => {
    const message = signed()
    expect(
      await verifySnsSignature({ ...message, Message: message.Message.replace('Delivery', 'Complaint') }, trust),
    ).toBe(false)
    expect(await verifySnsSignature(signed({}, otherPrivateKey), trust)).toBe(false)
    expect(await verifySnsSignature({ ...message, Signature: 'not base64 at all' }, trust)).toBe(false)
  })

  it('never fetches a certificate from outside SNS', async () => {
    for (const url of [
      'http://sns.eu-west-1.amazonaws.com/cert.pem',
      'https://sns.eu-west-1.amazonaws.com.evil.example/cert.pem',
      'https://evil.example/sns.eu-west-1.amazonaws.com/cert.pem',
      'https://sns.eu-west-1.amazonaws.com:8443/cert.pem',
      'not a url',
    ]) {
      expect(await verifySnsSignature(signed({ SigningCertURL: url }), trust), url).toBe(false)
    }
  })
})
