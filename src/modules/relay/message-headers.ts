import { isUtf8 } from 'node:buffer'
import { Headers } from '@zone-eu/mailsplit'
import libmime from 'libmime'
import addressparser from 'nodemailer/lib/addressparser'
import { z } from 'zod'
import { domainOf } from '../../mail/address.js'
import { SmtpRefusal } from '../../mail/submission/handler.js'

/** What the relay reads from a submitted message's header section, and the message as it is stored. */
export type SubmittedMessage = {
  /** The client's message less its Bcc and Idempotency-Key fields, with a Message-ID and a Date when it had none. */
  raw: Buffer
  /** The From header's one mailbox: receivers judge the domain rule and DKIM by it, not by MAIL FROM. */
  from: { email: string; name: string | null }
  subject: string
  /** Without angle brackets: the client's own when it gave one. */
  messageId: string
  idempotencyKey: string | undefined
}

const headerEnd = Buffer.from('\r\n\r\n')
const mailbox = z.email().max(254)
const printableAscii = /^[\x20-\x7e]{1,255}$/

/** Header values are bytes: UTF-8 ones (RFC 6532) are read as such, anything else a character per byte. */
function textOf(value: string): string {
  const bytes = Buffer.from(value, 'latin1')
  return isUtf8(bytes) ? bytes.toString('utf8') : value
}

const malformed = (message: string) => new SmtpRefusal(550, `5.6.0 ${message}`)

function fromMailbox(headers: Headers): SubmittedMessage['from'] {
  const fields = headers.get('from')
  if (fields.length === 0) throw malformed('The message has no From header; receivers need one to judge it')
  if (fields.length > 1) throw malformed('The message has more than one From header')
  const mailboxes = addressparser(textOf(headers.getFirst('from')), { flatten: true })
  const [only] = mailboxes
  if (mailboxes.length !== 1 || !only || !mailbox.safeParse(only.address).success) {
    throw malformed('The From header must name exactly one valid address')
  }
  return { email: only.address, name: only.name ? libmime.decodeWords(only.name) : null }
}

/** RFC 5322's date form, as nodemailer writes it. */
const dateHeader = (date: Date) => date.toUTCString().replace(/GMT/, '+0000')

/**
 * Reads the header section of a submitted message (mailsplit's header parser: the fields it leaves alone keep
 * their bytes, folding included) and gives back the message to store. The body is never parsed here. `id` is the
 * stored message's, used for a Message-ID the client did not give.
 */
export function readSubmittedMessage(raw: Buffer, id: string, now: Date): SubmittedMessage {
  const end = raw.indexOf(headerEnd)
  const bodyStart = end === -1 ? raw.length : end + headerEnd.length
  const headers = new Headers(raw.subarray(0, bodyStart))
  const from = fromMailbox(headers)

  let idempotencyKey: string | undefined
  if (headers.hasHeader('idempotency-key')) {
    idempotencyKey = headers.getFirst('idempotency-key')
    if (!printableAscii.test(idempotencyKey)) {
      throw malformed('Idempotency-Key must be 1 to 255 printable ASCII characters')
    }
    headers.remove('idempotency-key')
  }
  // Bcc recipients are in the envelope; the header would tell every recipient who else got the message.
  headers.remove('bcc')
  const given = headers.getFirst('message-id').replace(/^<|>$/g, '').trim()
  const messageId = given === '' ? `${id}@${domainOf(from.email)}` : given
  if (given === '') {
    headers.remove('message-id')
    headers.add('Message-ID', `<${messageId}>`)
  }
  if (!headers.hasHeader('date')) headers.add('Date', dateHeader(now))

  return {
    raw: headers.changed ? Buffer.concat([headers.build(), raw.subarray(bodyStart)]) : raw,
    from,
    subject: libmime.decodeWords(textOf(headers.getFirst('subject'))),
    messageId,
    idempotencyKey,
  }
}
