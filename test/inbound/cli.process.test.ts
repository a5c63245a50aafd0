import { createTransport } from 'nodemailer'
import { describe, expect, it } from 'vitest'
import { findFreePort } from '../../src/db/embedded.js'
import { cliSandbox } from '../helpers/cli-process.js'
import { createTestDatabase } from '../helpers/database.js'

const { start, dataDir: newDataDir } = cliSandbox()

function deliver(port: number, to: string) {
  return createTransport({ host: '127.0.0.1', port, connectionTimeout: 5_000 }).sendMail({
    from: 'someone@example.net',
    to,
    subject: 'hello',
    text: 'hello',
  })
}

describe('the inbound receiver in the CLI', () => {
  it('runs in the worker role only when INBOUND_SMTP_PORT is set, and closes on SIGTERM', async () => {
    const dataDir = newDataDir('mailroom-inbound-cli-')
    const smtpPort = await findFreePort()
    const env = {
      DATABASE_URL: await createTestDatabase(),
      DATA_DIR: dataDir,
      PORT: String(await findFreePort()),
      INBOUND_SMTP_PORT: String(smtpPort),
      INBOUND_SMTP_HOST: '127.0.0.1',
    }
    const api = start('api', env)
    await api.waitForOutput('Mailroom listening')
    // The API role never takes mail.
    await expect(deliver(smtpPort, 'x@nowhere.test')).rejects.toMatchObject({ code: 'ESOCKET' })
    expect(await api.stop('SIGTERM')).toBe(0)

    const worker = start('worker', env)
    await worker.waitForOutput('inbound SMTP receiver listening')
    // Up, and asking the database: no project owns this domain.
    await expect(deliver(smtpPort, 'x@nowhere.test')).rejects.toMatchObject({ responseCode: 550 })
    expect(await worker.stop('SIGTERM')).toBe(0)
    await expect(deliver(smtpPort, 'x@nowhere.test')).rejects.toMatchObject({ code: 'ESOCKET' })
  })
})
