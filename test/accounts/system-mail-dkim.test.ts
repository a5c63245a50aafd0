import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Config, ConfigError } from '../../src/config.js'
import type { DomainView } from '../../src/modules/domains/schemas.js'
import { getSigningKey } from '../../src/modules/domains/service.js'
import { assertSystemSenderSigned } from '../../src/modules/system-mail/sender-check.js'
import { systemProjectId } from '../../src/modules/system-mail/system-project.js'
import { authenticateAsReceiver } from '../helpers/dkim.js'
import { addDomain, addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { createAccount } from '../helpers/factories.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'

// The operator's domain, verified in an ordinary project; the system project owns no domain of its own.
const systemDomain = 'accounts.mailroom-operator.test'

describe('account emails over a real transport', () => {
  let sink: SmtpSink
  let setup: ServerWithDns
  let verified: DomainView

  beforeAll(async () => {
    sink = await startSmtpSink()
    setup = await startServerWithDns({
      config: { smtpUrl: sink.url, systemEmailFrom: { email: `no-reply@${systemDomain}`, name: 'Mailroom' } },
    })
    const operator = await createAccount(setup.server)
    verified = await addVerifiedDomain(setup.server, setup.dns, operator, systemDomain)
    // Strict alignment: only a signature by the From's own domain passes.
    setup.dns.set(`_dmarc.${systemDomain}`, 'TXT', ['v=DMARC1; p=reject; adkim=s'])
  })
  afterAll(async () => {
    await setup.close()
    await sink.close()
  })

  it('are DKIM-signed by the From domain, pass DMARC at the receiver and carry a Message-ID of that domain', async () => {
    const user = await createAccount(setup.server)
    const reset = await setup.server.app.inject({
      method: 'POST',
      url: '/auth/request-password-reset',
      payload: { email: user.email },
    })
    expect(reset.statusCode).toBe(200)

    const [message] = await sink.waitForMessages(1)
    if (!message) throw new Error('no message')
    expect(message.parsed.subject).toBe('Reset your password')
    expect(message.parsed.from?.value).toEqual([{ address: `no-reply@${systemDomain}`, name: 'Mailroom' }])
    expect(message.parsed.messageId).toMatch(new RegExp(`^<[^@]+@${systemDomain.replaceAll('.', '\\.')}>$`))

    const verdict = await authenticateAsReceiver(message.raw, message.envelope.from, setup.dns)
    expect(verdict.dkim.results.map((signature) => [signature.status.result, signature.signingDomain])).toEqual([
      ['pass', systemDomain],
    ])
    expect(verdict.dkim.results[0]?.status.aligned).toBe(systemDomain)
    expect(verdict.dmarc ? verdict.dmarc.status.result : 'not checked').toBe('pass')
  })

  it('are not signed with the key of a domain that no project verified', async () => {
    const other = await createAccount(setup.server)
    const pending = await addDomain(setup.server, other, 'pending.mailroom-operator.test')
    const { db } = setup.server.ctx
    const system = await systemProjectId(db, setup.server.config.secret)
    expect(await getSigningKey(db, setup.server.config, system, pending.domain)).toBeUndefined()
    expect(await getSigningKey(db, setup.server.config, system, systemDomain)).toMatchObject({
      selector: verified.dkimSelector,
    })
  })

  it('refuse a start on a real transport while no project verified the From domain, naming SYSTEM_EMAIL_FROM', async () => {
    const startWith = (config: Partial<Config>) =>
      assertSystemSenderSigned({ db: setup.server.ctx.db, config: { ...setup.server.config, ...config } })
    const unverified = { systemEmailFrom: { email: 'no-reply@127.0.0.1', name: 'Mailroom' } }

    const refusal = await startWith(unverified).catch((err: unknown) => err)
    expect(refusal).toBeInstanceOf(ConfigError)
    expect((refusal as ConfigError).problems).toEqual([
      expect.stringMatching(
        /^SYSTEM_EMAIL_FROM: account emails would be sent from no-reply@127\.0\.0\.1, but no project/,
      ),
    ])
    await startWith({ systemEmailFrom: { email: `no-reply@${systemDomain}`, name: null } })
    await startWith({ ...unverified, mailTransport: 'capture' })
    await startWith({ ...unverified, systemEmailDkim: 'relay' })
  })
})
