import { describe, expect, it } from 'vitest'
import { cliSandbox } from '../helpers/cli-process.js'
import { createTestDatabase } from '../helpers/database.js'

const { start, dataDir } = cliSandbox()

describe('the system sender at start', () => {
  it('refuses to start on smtp while no project verified the From domain, and says which variable and why', async () => {
    const server = start('start', {
      DATABASE_URL: await createTestDatabase(),
      DATA_DIR: dataDir('mailroom-system-sender-'),
      PORT: '0',
      MAIL_TRANSPORT: 'smtp',
      SMTP_URL: 'smtp://127.0.0.1:9',
      SYSTEM_EMAIL_DKIM: 'mailroom',
    })
    expect(await server.exited).toBe(1)
    expect(server.output()).toContain(
      'SYSTEM_EMAIL_FROM: account emails would be sent from no-reply@localhost, but no project of this instance ' +
        'has verified localhost, so they would carry no DKIM signature and fail DMARC.',
    )
    expect(server.output()).not.toContain('Mailroom listening')
  })
})
