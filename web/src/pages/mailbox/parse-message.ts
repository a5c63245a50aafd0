import PostalMime, { type Address, type Email } from 'postal-mime'

export type ParsedMessage = {
  from: string
  to: string
  subject: string
  date: string | undefined
  html: string | undefined
  text: string | undefined
  attachments: { filename: string; mimeType: string; size: number }[]
}

function addressText(address: Address | undefined): string {
  if (!address) return ''
  if ('group' in address && address.group) return address.group.map(addressText).join(', ')
  return address.name ? `${address.name} <${address.address}>` : (address.address ?? '')
}

function bytes(content: ArrayBuffer | Uint8Array | string): Uint8Array {
  return typeof content === 'string' ? new TextEncoder().encode(content) : new Uint8Array(content)
}

function dataUrl(mimeType: string, content: ArrayBuffer | Uint8Array | string): string {
  let binary = ''
  for (const byte of bytes(content)) binary += String.fromCharCode(byte)
  return `data:${mimeType};base64,${btoa(binary)}`
}

/**
 * The HTML as the recipient's client shows it: inline (cid:) images become data URLs the sandboxed frame can
 * load, and the open-tracking pixel is dropped so looking at a captured message here does not count as an open.
 */
function displayHtml(email: Email): string | undefined {
  if (!email.html) return undefined
  const document = new DOMParser().parseFromString(email.html, 'text/html')
  const inline = new Map(
    email.attachments
      .filter((attachment) => attachment.contentId)
      .map((attachment) => [attachment.contentId?.replace(/^<|>$/g, ''), attachment]),
  )
  for (const image of document.querySelectorAll('img')) {
    const src = image.getAttribute('src') ?? ''
    if (src.includes('/t/open/')) image.remove()
    else if (src.startsWith('cid:')) {
      const attachment = inline.get(src.slice(4))
      if (attachment) image.setAttribute('src', dataUrl(attachment.mimeType, attachment.content))
    }
  }
  return `<!doctype html>${document.documentElement.outerHTML}`
}

export async function parseMessage(raw: ArrayBuffer): Promise<ParsedMessage> {
  const email = await PostalMime.parse(raw)
  return {
    from: addressText(email.from),
    to: (email.to ?? []).map(addressText).join(', '),
    subject: email.subject ?? '',
    date: email.date,
    html: displayHtml(email),
    text: email.text,
    attachments: email.attachments
      .filter((attachment) => !attachment.contentId || attachment.disposition === 'attachment')
      .map((attachment) => ({
        filename: attachment.filename ?? 'attachment',
        mimeType: attachment.mimeType,
        size: bytes(attachment.content).byteLength,
      })),
  }
}
