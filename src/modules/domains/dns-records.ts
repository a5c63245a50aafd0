import type { Config } from '../../config.js'
import type { DnsRecordPurpose, DnsRecordView } from './schemas.js'

export type DnsRecordSpec = Omit<DnsRecordView, 'status'>

export type DomainKeys = { domain: string; dkimSelector: string; dkimPublicKey: string }

/** The subdomain SES uses as MAIL FROM, so bounces return through SES and SPF aligns with the sender domain. */
const sesMailFromLabel = 'mail'

function dkimRecordName(domain: string, selector: string): string {
  return `${selector}._domainkey.${domain}`
}

function dkimRecordValue(publicKey: string): string {
  return `v=DKIM1; k=rsa; p=${publicKey}`
}

/**
 * The records a domain owner creates. Only DKIM is required: its key is this project's own, so publishing
 * it proves the owner authorised this project, and it gives DMARC alignment. SPF, the provider's MAIL FROM
 * records and DMARC improve delivery but prove nothing about the project.
 */
export function buildDnsRecords(
  config: Pick<Config, 'mailTransport' | 'sesRegion'>,
  keys: DomainKeys,
): DnsRecordSpec[] {
  const { domain } = keys
  const dkim: DnsRecordSpec = {
    type: 'TXT',
    name: dkimRecordName(domain, keys.dkimSelector),
    value: dkimRecordValue(keys.dkimPublicKey),
    purpose: 'DKIM',
    required: true,
  }
  const dmarc: DnsRecordSpec = {
    type: 'TXT',
    name: `_dmarc.${domain}`,
    value: 'v=DMARC1; p=none;',
    purpose: 'DMARC',
    required: false,
  }
  if (config.mailTransport === 'ses') {
    const mailFrom = `${sesMailFromLabel}.${domain}`
    return [
      dkim,
      { type: 'TXT', name: mailFrom, value: 'v=spf1 include:amazonses.com ~all', purpose: 'SPF', required: false },
      {
        type: 'MX',
        name: mailFrom,
        value: `feedback-smtp.${config.sesRegion}.amazonses.com`,
        priority: 10,
        purpose: 'MAIL_FROM',
        required: false,
      },
      dmarc,
    ]
  }
  // With an SMTP relay we cannot know which hosts send for it; the owner adapts this to the relay's advice.
  return [dkim, { type: 'TXT', name: domain, value: 'v=spf1 a mx ~all', purpose: 'SPF', required: false }, dmarc]
}

export function requiredPurposes(records: readonly DnsRecordSpec[]): DnsRecordPurpose[] {
  return records.filter((record) => record.required).map((record) => record.purpose)
}
