import { randomUUID, sign } from 'node:crypto'
import {
  isAmazonSnsCertificateUrl,
  isAmazonSnsUrl,
  type SnsMessage,
  type SnsTrust,
  snsStringToSign,
} from '../../src/mail/aws/sns.js'
import { createSelfSignedCertificate } from './self-signed-certificate.js'

export type SnsSigner = {
  /** A URL that passes the SNS host check; `trust` serves the throwaway certificate for it. */
  certificateUrl: string
  certificate: string
  privateKey: string
  /** Pass to `verifySnsSignature` (or to the server) so the throwaway certificate is trusted. */
  trust: SnsTrust
  /**
   * An SNS envelope around `message` (an SES notification object is JSON-encoded), signed as SNS does.
   * `overrides` replace envelope fields before signing; `key` signs with another key (a forgery).
   */
  notification(
    message: string | object,
    overrides?: Partial<SnsMessage>,
    options?: { key?: string; version?: '1' | '2' },
  ): SnsMessage
}

/** Certificates of every signer, by URL, so several signers in one file can coexist. */
const certificates = new Map<string, string>()

/** One RSA key and self-signed certificate per signer (openssl, about 50 ms). */
export function createSnsSigner(name = 'sns-test'): SnsSigner {
  const { certificate, privateKey } = createSelfSignedCertificate(name)
  const certificateUrl = `https://sns.us-east-1.amazonaws.com/SimpleNotificationService-${name}.pem`
  certificates.set(certificateUrl, certificate)
  const trust: SnsTrust = {
    isTrustedCertificateUrl: isAmazonSnsCertificateUrl,
    isTrustedSubscribeUrl: isAmazonSnsUrl,
    fetchCertificate: async (url) => {
      const pem = certificates.get(url.toString())
      if (pem === undefined) throw new Error(`unexpected certificate URL ${url}`)
      return pem
    },
  }
  return {
    certificateUrl,
    certificate,
    privateKey,
    trust,
    notification(message, overrides = {}, options = {}) {
      const version = options.version ?? '1'
      const envelope: SnsMessage = {
        Type: 'Notification',
        MessageId: randomUUID(),
        TopicArn: 'arn:aws:sns:us-east-1:123456789012:mailroom-ses-events',
        Subject: 'Amazon SES Email Event Notification',
        Message: typeof message === 'string' ? message : JSON.stringify(message),
        Timestamp: new Date().toISOString(),
        SignatureVersion: version,
        Signature: '',
        SigningCertURL: certificateUrl,
        ...overrides,
      }
      const algorithm = version === '1' ? 'RSA-SHA1' : 'RSA-SHA256'
      const signature = sign(algorithm, Buffer.from(snsStringToSign(envelope)), options.key ?? privateKey)
      return { ...envelope, Signature: signature.toString('base64') }
    },
  }
}
