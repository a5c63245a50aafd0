import { beforeAll, describe, expect, it } from 'vitest'
import { type SnsMessage, verifySnsSignature } from '../../../src/mail/aws/sns.js'
import { createSnsSigner, type SnsSigner } from '../../helpers/sns-signer.js'

let signer: SnsSigner
let attacker: SnsSigner

beforeAll(() => {
  signer = createSnsSigner('sns-test')
  attacker = createSnsSigner('attacker')
})

const deliveryEvent = { eventType: 'Delivery', mail: { messageId: 'abc' } }

function signed(overrides: Partial<SnsMessage> = {}, key?: string, version: '1' | '2' = '1'): SnsMessage {
  return signer.notification(deliveryEvent, overrides, { version, ...(key ? { key } : {}) })
}

describe('SNS signature verification', () => {
  it('accepts a notification signed with SignatureVersion 1 and 2 by the trusted certificate', async () => {
    expect(await verifySnsSignature(signed(), signer.trust)).toBe(true)
    expect(await verifySnsSignature(signed({}, undefined, '2'), signer.trust)).toBe(true)
  })

  it('accepts a signed subscription confirmation, whose signed fields differ', async () => {
    const confirmation = signed({
      Type: 'SubscriptionConfirmation',
      Subject: undefined,
      Message: 'You have chosen to subscribe',
      SubscribeURL: 'https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&Token=t',
      Token: 't',
    })
    expect(await verifySnsSignature(confirmation, signer.trust)).toBe(true)
  })

  it('rejects a tampered message, a foreign signature and garbage', async () => {
    const message = signed()
    expect(
      await verifySnsSignature({ ...message, Message: message.Message.replace('Delivery', 'Complaint') }, signer.trust),
    ).toBe(false)
    expect(await verifySnsSignature(signed({}, attacker.privateKey), signer.trust)).toBe(false)
    expect(await verifySnsSignature({ ...message, Signature: 'not base64 at all' }, signer.trust)).toBe(false)
  })

  it('never fetches a certificate from outside SNS', async () => {
    for (const url of [
      'http://sns.eu-west-1.amazonaws.com/cert.pem',
      'https://sns.eu-west-1.amazonaws.com.evil.example/cert.pem',
      'https://evil.example/sns.eu-west-1.amazonaws.com/cert.pem',
      'https://sns.eu-west-1.amazonaws.com:8443/cert.pem',
      'not a url',
    ]) {
      expect(await verifySnsSignature(signed({ SigningCertURL: url }), signer.trust), url).toBe(false)
    }
  })
})
