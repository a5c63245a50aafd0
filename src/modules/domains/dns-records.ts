import type { Config } from '../../config.js'
import { envelopeDomainOf } from './audit/return-path.js'
import { spfMechanismOf } from './audit/sender.js'
import type { DnsRecordPurpose, DnsRecordView } from './schemas.js'

export type DnsRecordSpec = Omit<DnsRecordView, 'status'>

export type DomainKeys = { domain: string; dkimSelector: string; dkimPublicKey: string }

/** What the records depend on besides the keys: the custom MAIL FROM domain, once set. */
export type RecordTarget = DomainKeys & { returnPathDomain: string | null }

export function dkimRecordName(domain: string, selector: string): string {
  return `${selector}._domainkey.${domain}`
}

export function dkimRecordValue(publicKey: string): string {
  return `v=DKIM1; k=rsa; p=${publicKey}`
}

/**
 * The records a domain owner creates. Only DKIM is required: its key is this project's own, so publishing
 * it proves the owner authorised this project, and it gives DMARC alignment. SPF, the provider's MAIL FROM
 * records and DMARC improve delivery but prove nothing about the project.
 */
export function buildDnsRecords(
  config: Pick<Config, 'mailTransport' | 'sesRegion' | 'smtpUrl'>,
  keys: RecordTarget,
): DnsRecordSpec[] {
  const { domain } = keys
  // SPF is judged at the envelope (MAIL FROM) domain: the return-path domain once set, else the domain itself
  // (or, with SES, the MAIL FROM subdomain it is asked to use).
  const envelopeDomain = envelopeDomainOf(config.mailTransport, domain, keys.returnPathDomain)
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
    return [
      dkim,
      {
        type: 'TXT',
        name: envelopeDomain,
        value: 'v=spf1 include:amazonses.com ~all',
        purpose: 'SPF',
        required: false,
      },
      {
        type: 'MX',
        name: envelopeDomain,
        value: `feedback-smtp.${config.sesRegion}.amazonses.com`,
        priority: 10,
        purpose: 'MAIL_FROM',
        required: false,
      },
      dmarc,
    ]
  }
  // The relay by its address or name (a provider may advise an include instead); capture sends nothing.
  const spf = `v=spf1 ${spfMechanismOf(config) ?? 'a mx'} ~all`
  return [dkim, { type: 'TXT', name: envelopeDomain, value: spf, purpose: 'SPF', required: false }, dmarc]
}

export function requiredPurposes(records: readonly DnsRecordSpec[]): DnsRecordPurpose[] {
  return records.filter((record) => record.required).map((record) => record.purpose)
}
