import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SmtpRefusal, type SubmissionHandler } from '../../src/mail/submission/handler.js'
import { createSubmissionHandler } from '../../src/modules/relay/handler.js'
import { setLimits } from '../billing/helpers.js'
import { addDomain, addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { startTestServer } from '../helpers/server.js'
import { refusalOf } from './helpers.js'

let env: ServerWithDns
let handler: SubmissionHandler
let account: Account
let other: Account

const domain = 'relay-refusals.example.com'

beforeAll(async () => {
  env = await startServerWithDns()
  handler = createSubmissionHandler(env.server.ctx)
  account = await createAccount(env.server)
  other = await createAccount(env.server, 'Another project')
  await addVerifiedDomain(env.server, env.dns, account, domain)
  await addVerifiedDomain(env.server, env.dns, other, 'other-project.example.com')
  await addDomain(env.server, account, 'pending.example.com')
})
afterAll(async () => {
  await env.close()
})

const login = (password: string, username = 'plunk', remoteAddress = '127.0.0.1') =>
  handler.authenticate({ username, password, remoteAddress })

async function setProject(projectId: string, disabledReason: string | null, pausedReason: string | null) {
  await env.server.ctx.pool.query(
    'UPDATE projects SET disabled = $2, disabled_reason = $3, sending_paused_reason = $4 WHERE id = $1',
    [projectId, disabledReason !== null, disabledReason, pausedReason],
  )
}

describe('AUTH', () => {
  it('takes the secret key as the password, whatever the user name', async () => {
    for (const username of ['plunk', 'mailroom', 'apps@example.com', '']) {
      expect(await login(account.secretKey, username)).toEqual({ projectId: account.project.id })
    }
    expect(await login(other.secretKey)).toEqual({ projectId: other.project.id })
  })

  it('refuses a public key, an unknown key and a wrong password with 535 5.7.8', async () => {
    const invalid = { code: 535, message: '5.7.8 Authentication credentials invalid' }
    expect(await refusalOf(login(account.publicKey))).toEqual(invalid)
    expect(await refusalOf(login(`sk_${'0'.repeat(64)}`))).toEqual(invalid)
    expect(await refusalOf(login('hunter2'))).toEqual(invalid)
    expect(await refusalOf(login(''))).toEqual(invalid)
  })

  it('refuses a rotated key at once and takes the new one', async () => {
    const rotated = await createAccount(env.server, 'Rotating')
    const response = await env.server.app.inject({
      method: 'POST',
      url: `/users/@me/projects/${rotated.project.id}/regenerate-keys`,
      headers: { cookie: rotated.cookie },
    })
    expect(response.statusCode).toBe(200)
    const fresh = response.json<{ secret: string }>().secret
    expect(await refusalOf(login(rotated.secretKey))).toEqual({
      code: 535,
      message: '5.7.8 Authentication credentials invalid',
    })
    expect(await login(fresh)).toEqual({ projectId: rotated.project.id })
  })

  it('refuses an address over the failed-login limit with 421 4.7.0 and a retry hint, even with the right key', async () => {
    const ctx = env.server.ctx
    const limited = createSubmissionHandler({ ...ctx, config: { ...ctx.config, failedAuthLimitPerMinute: 3 } })
    const from = (remoteAddress: string, password: string) =>
      limited.authenticate({ username: 'plunk', password, remoteAddress })
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await refusalOf(from('192.0.2.7', 'wrong'))).code).toBe(535)
    }
    const refused = await refusalOf(from('192.0.2.7', account.secretKey))
    expect(refused.code).toBe(421)
    expect(refused.message).toMatch(/^4\.7\.0 Too many failed logins from this address; try again in \d+ seconds$/)
    // Counted per address: another client still gets in.
    expect(await from('192.0.2.8', account.secretKey)).toEqual({ projectId: account.project.id })
  })
})

describe('MAIL FROM', () => {
  it('takes an address of a domain verified for the project', async () => {
    await expect(handler.checkSender(account.project.id, `app@${domain}`)).resolves.toBeUndefined()
  })

  it('refuses a domain that is not registered, or not verified, with 550 5.7.1 and the reason', async () => {
    expect(await refusalOf(handler.checkSender(account.project.id, 'app@elsewhere.example.org'))).toEqual({
      code: 550,
      message: '5.7.1 Sender domain elsewhere.example.org is not registered to this project',
    })
    expect(await refusalOf(handler.checkSender(account.project.id, 'app@pending.example.com'))).toEqual({
      code: 550,
      message: '5.7.1 Sender domain pending.example.com is not verified yet',
    })
  })

  it("refuses another project's verified domain: a key sends only from its own project's domains", async () => {
    expect(await refusalOf(handler.checkSender(other.project.id, `app@${domain}`))).toEqual({
      code: 550,
      message: `5.7.1 Sender domain ${domain} is not registered to this project`,
    })
    expect(await refusalOf(handler.checkSender(account.project.id, 'app@other-project.example.com'))).toEqual({
      code: 550,
      message: '5.7.1 Sender domain other-project.example.com is not registered to this project',
    })
  })

  it('refuses a null sender and an address that is not one', async () => {
    expect((await refusalOf(handler.checkSender(account.project.id, ''))).code).toBe(550)
    expect(await refusalOf(handler.checkSender(account.project.id, 'not an address'))).toEqual({
      code: 553,
      message: '5.1.7 The sender address not an address is not valid',
    })
  })

  it('refuses a disabled project, then a paused one, with 550 5.7.1 and the reason', async () => {
    const project = await createAccount(env.server, 'Held')
    await addVerifiedDomain(env.server, env.dns, project, 'held.example.com')
    await setProject(project.project.id, 'payment failed', null)
    expect(await refusalOf(handler.checkSender(project.project.id, 'app@held.example.com'))).toEqual({
      code: 550,
      message: '5.7.1 Sending is disabled for this project: payment failed',
    })
    await setProject(project.project.id, null, 'bounce rate 12% over the last 200 emails')
    expect(await refusalOf(handler.checkSender(project.project.id, 'app@held.example.com'))).toEqual({
      code: 550,
      message: '5.7.1 Sending is paused for this project: bounce rate 12% over the last 200 emails',
    })
    await setProject(project.project.id, null, null)
    await expect(handler.checkSender(project.project.id, 'app@held.example.com')).resolves.toBeUndefined()
  })
})

describe('RCPT TO', () => {
  it('takes an address that is not suppressed', async () => {
    await expect(handler.checkRecipient(account.project.id, 'reader@example.net')).resolves.toBeUndefined()
  })

  it('refuses a suppressed address with 550 5.1.1 and why, in this project only', async () => {
    for (const [email, reason] of [
      ['Bounced@Example.net', 'bounce'],
      ['complained@example.net', 'complaint'],
    ] as const) {
      const response = await env.server.app.inject({
        method: 'POST',
        url: '/suppressions',
        headers: bearer(account.secretKey),
        payload: { email, reason },
      })
      expect(response.statusCode).toBe(201)
    }
    expect(await refusalOf(handler.checkRecipient(account.project.id, 'bounced@example.net'))).toEqual({
      code: 550,
      message: '5.1.1 bounced@example.net is suppressed: earlier mail to this address bounced permanently',
    })
    expect(await refusalOf(handler.checkRecipient(account.project.id, 'complained@example.net'))).toEqual({
      code: 550,
      message: '5.1.1 complained@example.net is suppressed: the address complained about earlier mail',
    })
    await expect(handler.checkRecipient(other.project.id, 'bounced@example.net')).resolves.toBeUndefined()
  })

  it('refuses an address that is not one with 553 5.1.3', async () => {
    expect(await refusalOf(handler.checkRecipient(account.project.id, 'nobody@'))).toEqual({
      code: 553,
      message: '5.1.3 The recipient address nobody@ is not valid',
    })
  })

  it('refuses every recipient with 452 4.3.1 once the monthly transactional cap is reached', async () => {
    const capped = await createAccount(env.server, 'Capped')
    await setLimits(env.server, capped, { transactional: 0 })
    const refused = await refusalOf(handler.checkRecipient(capped.project.id, 'reader@example.net'))
    expect(refused).toEqual({
      code: 452,
      message: expect.stringMatching(/^4\.3\.1 The project's monthly transactional limit of 0 emails is reached/),
    })
  })
})

/** 'taken', or the refusal the client would read. */
const outcomeOf = (step: Promise<void>) =>
  step.then(
    () => 'taken',
    (err: unknown) => (err instanceof SmtpRefusal ? { code: err.responseCode, message: err.message } : err),
  )

describe('MAIL FROM and RCPT TO of many connections at once', () => {
  it('share their lookups, each judged for its own project and address', async () => {
    await env.server.app.inject({
      method: 'POST',
      url: '/suppressions',
      headers: bearer(account.secretKey),
      payload: { email: 'shared-lookup@example.net', reason: 'bounce' },
    })
    // Asked in one turn of the event loop, as pipelined commands of several connections are: one batch each.
    const senders = await Promise.all(
      [
        handler.checkSender(account.project.id, `app@${domain}`),
        handler.checkSender(other.project.id, `app@${domain}`),
        handler.checkSender(other.project.id, 'app@other-project.example.com'),
        handler.checkSender(account.project.id, 'app@pending.example.com'),
      ].map(outcomeOf),
    )
    expect(senders).toEqual([
      'taken',
      { code: 550, message: `5.7.1 Sender domain ${domain} is not registered to this project` },
      'taken',
      { code: 550, message: '5.7.1 Sender domain pending.example.com is not verified yet' },
    ])
    const recipients = await Promise.all(
      [
        handler.checkRecipient(other.project.id, 'shared-lookup@example.net'),
        handler.checkRecipient(account.project.id, 'Shared-Lookup@example.net'),
        handler.checkRecipient(account.project.id, 'someone-else@example.net'),
      ].map(outcomeOf),
    )
    expect(recipients).toEqual([
      'taken',
      {
        code: 550,
        message: '5.1.1 Shared-Lookup@example.net is suppressed: earlier mail to this address bounced permanently',
      },
      'taken',
    ])
  })
})

// Shared with the API's counts through Redis; runs where a Redis server is given (CI sets TEST_REDIS_URL).
describe.runIf(process.env.TEST_REDIS_URL)('failed logins counted with the API through Redis', () => {
  it('wrong API keys and wrong SMTP passwords from one address add up to one budget', async () => {
    const server = await startTestServer({
      worker: false,
      config: { redisUrl: process.env.TEST_REDIS_URL, failedAuthLimitPerMinute: 3 },
    })
    try {
      const owner = await createAccount(server)
      const relay = createSubmissionHandler(server.ctx)
      // A /64 of its own per run: the counters outlive the test in the shared Redis.
      const address = `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}::1`
      for (let attempt = 0; attempt < 2; attempt++) {
        const response = await server.app.inject({
          method: 'GET',
          url: '/contacts',
          remoteAddress: address,
          headers: bearer(`sk_${'0'.repeat(64)}`),
        })
        expect(response.statusCode).toBe(401)
      }
      const wrong = relay.authenticate({ username: 'plunk', password: 'wrong', remoteAddress: address })
      expect((await refusalOf(wrong)).code).toBe(535)
      const right = relay.authenticate({ username: 'plunk', password: owner.secretKey, remoteAddress: address })
      expect((await refusalOf(right)).code).toBe(421)
    } finally {
      await server.close()
    }
  })
})
