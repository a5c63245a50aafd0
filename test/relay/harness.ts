import { EventEmitter, once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { onTestFinished } from 'vitest'
import { createLogger } from '../../src/logger.js'
import { watchCertificateFiles } from '../../src/mail/submission/certificates.js'
import { SmtpRefusal, type Submission, type SubmissionHandler } from '../../src/mail/submission/handler.js'
import {
  type SubmissionServer,
  type SubmissionServerOptions,
  startSubmissionServer,
} from '../../src/mail/submission/server.js'
import { type CapturedLog, captureLog } from '../helpers/log-capture.js'
import { createSelfSignedCertificate } from '../helpers/self-signed-certificate.js'

export const goodKey = 'sk_relay_test_good_secret_key'
export const rateLimitedKey = 'sk_relay_test_rate_limited'
export const brokenKey = 'sk_relay_test_database_down'
export const projectId = 'project-relay-test'

/** What the test's application answers, by address: the refusals item 4 of issue #31 lists. */
export const refusals = {
  badLogin: new SmtpRefusal(535, '5.7.8 Authentication credentials invalid'),
  rateLimited: new SmtpRefusal(421, '4.7.0 Too many failed logins from 127.0.0.1, try again in 60 seconds'),
  unverifiedSender: new SmtpRefusal(550, '5.7.1 Sender domain unverified.test is not verified for this project'),
  suppressed: new SmtpRefusal(550, '5.1.1 Recipient suppressed@example.com is suppressed: it bounced'),
  overCap: new SmtpRefusal(452, '4.3.1 The project reached its monthly email cap'),
}

export type Call =
  | { step: 'authenticate'; username: string; password: string; remoteAddress: string }
  | { step: 'checkSender'; projectId: string; address: string }
  | { step: 'checkRecipient'; projectId: string; address: string }
  | { step: 'accept'; submission: Submission }

/**
 * A `SubmissionHandler` as the application would be: it logs in `goodKey`, refuses what `refusals` names, and
 * records every call. `accept` can be told to fail or to wait.
 */
export function recordingHandler() {
  const calls: Call[] = []
  const events = new EventEmitter()
  let acceptFailure: Error | undefined
  let acceptGate: Promise<void> | undefined
  const handler: SubmissionHandler = {
    async authenticate(login) {
      calls.push({ step: 'authenticate', ...login })
      if (login.password === rateLimitedKey) throw refusals.rateLimited
      if (login.password === brokenKey) throw new Error('database down')
      if (login.password !== goodKey) throw refusals.badLogin
      return { projectId }
    },
    async checkSender(project, address) {
      calls.push({ step: 'checkSender', projectId: project, address })
      if (address.endsWith('@unverified.test')) throw refusals.unverifiedSender
    },
    async checkRecipient(project, address) {
      calls.push({ step: 'checkRecipient', projectId: project, address })
      if (address === 'suppressed@example.com') throw refusals.suppressed
      if (address === 'over-cap@example.com') throw refusals.overCap
    },
    async accept(submission) {
      calls.push({ step: 'accept', submission })
      events.emit('accepting', submission)
      if (acceptGate) await acceptGate
      if (acceptFailure) throw acceptFailure
      return { emailIds: submission.recipients.map((_, index) => `email-${calls.length}-${index}`) }
    },
  }
  return {
    handler,
    calls,
    accepted: () => calls.flatMap((call) => (call.step === 'accept' ? [call.submission] : [])),
    stepsOf: (step: Call['step']) => calls.filter((call) => call.step === step),
    failAcceptWith(err: Error) {
      acceptFailure = err
    },
    /** accept waits until the returned function is called; resolves once a call to accept is waiting. */
    holdAccept(): { waiting: Promise<unknown>; release: () => void } {
      let release = () => {}
      acceptGate = new Promise((resolve) => {
        release = resolve
      })
      return { waiting: once(events, 'accepting'), release }
    },
  }
}

export type Relay = SubmissionServer & {
  recorder: ReturnType<typeof recordingHandler>
  log: CapturedLog
  certificate: string
  folder: string
  keyFile: string
  certFile: string
}

/** A relay on free ports of 127.0.0.1 with a fresh self-signed certificate in files; closed after the test. */
export async function startRelay(overrides: Partial<SubmissionServerOptions> = {}): Promise<Relay> {
  const folder = mkdtempSync(path.join(tmpdir(), 'mailroom-relay-'))
  const keyFile = path.join(folder, 'key.pem')
  const certFile = path.join(folder, 'cert.pem')
  const { certificate, privateKey } = createSelfSignedCertificate('relay.test')
  writeFileSync(keyFile, privateKey)
  writeFileSync(certFile, certificate)
  const log = captureLog()
  const logger = createLogger({ logLevel: 'debug' }, log.stream)
  const recorder = recordingHandler()
  const server = await startSubmissionServer({
    host: '127.0.0.1',
    starttlsPort: 0,
    tlsPort: 0,
    tls: overrides.tls ?? (await watchCertificateFiles({ keyFile, certFile }, { log: logger })),
    maxRecipients: 3,
    maxMessageBytes: 256 * 1024,
    handler: recorder.handler,
    serverName: 'relay.test',
    log: logger,
    ...overrides,
  })
  onTestFinished(async () => {
    await server.close()
    rmSync(folder, { recursive: true, force: true })
  })
  return { ...server, recorder, log, certificate, folder, keyFile, certFile }
}
