import { describe, expect, it } from 'vitest'
import { renderForContact } from '../../../src/mail/outbound/contact-render.js'
import { listUnsubscribeHeaders } from '../../../src/mail/outbound/list-unsubscribe.js'
import { subscriptionUrls } from '../../../src/mail/outbound/subscription-links.js'

const links = {
  publicUrl: 'https://mail.example.com',
  secret: 'a-secret-of-more-than-thirty-two-characters',
  subject: { projectId: '0b6f8e42-5a0c-4d1e-9f3a-2c7d8e9f0a1b', contactId: '7e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b' },
  inboundDomain: 'inbound.example.com',
}
const job = {
  subject: 'Hi {{ data.name }}',
  body: '<a href="{{ unsubscribeUrl }}">{{ email }}</a> <a href="{{ manageUrl }}">{{ id }}</a>',
  contact: { id: links.subject.contactId, email: 'ada@example.org', data: { name: 'Ada' } },
  links,
}

describe('rendering an email for a contact', () => {
  it('renders with the contact, its subscription URLs and the List-Unsubscribe headers of its links', async () => {
    const urls = subscriptionUrls(links.publicUrl, links.secret, links.subject)
    expect(await renderForContact({ ...job, listUnsubscribe: true })).toEqual({
      subject: 'Hi Ada',
      html: `<a href="${urls.unsubscribeUrl}">ada@example.org</a> <a href="${urls.manageUrl}">${job.contact.id}</a>`,
      headers: listUnsubscribeHeaders(links),
    })
  })

  it('adds no headers to mail that does not ask for them', async () => {
    expect((await renderForContact({ ...job, listUnsubscribe: false })).headers).toBeUndefined()
  })
})
