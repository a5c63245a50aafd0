import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { runCli, waitForCliBuild } from '../helpers/cli-process.js'
import { type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { type Account, createAccount } from '../helpers/factories.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { expectReadOnly, walkEveryTool } from './tool-walk.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** `mailroom mcp` from this checkout's dist, as a desktop agent's configuration starts it, with the SDK's client. */
async function connectStdio(env: Record<string, string>, args: string[] = []): Promise<Client> {
  const client = new Client({ name: 'mailroom-test', version: '1.0.0' })
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['dist/cli.js', 'mcp', ...args],
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  })
  await client.connect(transport)
  return client
}

describe('mailroom mcp (stdio)', () => {
  let sink: SmtpSink
  let env: ServerWithDns
  let account: Account
  const clients: Client[] = []

  beforeAll(async () => {
    await waitForCliBuild()
    sink = await startSmtpSink()
    env = await startServerWithDns({ config: { smtpUrl: sink.url } })
    account = await createAccount(env.server)
  }, 10 * 60_000)
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()))
    sink.reset()
  })
  afterAll(async () => {
    await env.close()
    await sink.close()
  })

  const connected = async (extra: Record<string, string> = {}, args: string[] = []) => {
    const client = await connectStdio(
      { MAILROOM_URL: env.server.url, MAILROOM_SECRET_KEY: account.secretKey, ...extra },
      args,
    )
    clients.push(client)
    return client
  }

  it('offers every tool, and each one works end to end against the server at MAILROOM_URL', async () => {
    const other = await createAccount(env.server)
    const client = await connected({ MCP_CONFIRM_RECIPIENTS: '3' })
    await walkEveryTool(client, { env, sink, account, other, confirmRecipientsAbove: 3 })
  })

  it('with --read-only, or MCP_READ_ONLY, offers only the read tools and refuses every write', async () => {
    await expectReadOnly(await connected({}, ['--read-only']), account, env)
    await expectReadOnly(await connected({ MCP_READ_ONLY: 'true' }), account, env)
  })

  it('a tool answers why when the server cannot be reached', async () => {
    const client = await connected({ MAILROOM_URL: 'http://127.0.0.1:9' })
    const answer = await client.callTool({ name: 'list_contacts', arguments: {} })
    expect(answer.isError).toBe(true)
    expect(answer.content).toEqual([
      { type: 'text', text: expect.stringContaining('Could not reach Mailroom at http://127.0.0.1:9') },
    ])
  })

  it('without a usable secret key exits at once, saying which setting is wrong', async () => {
    for (const key of [undefined, account.publicKey]) {
      const cli = runCli('mcp', { MAILROOM_URL: env.server.url, ...(key ? { MAILROOM_SECRET_KEY: key } : {}) })
      expect(await cli.exited).toBe(1)
      expect(cli.output()).toContain('MAILROOM_SECRET_KEY')
      expect(cli.output()).not.toContain(account.publicKey)
    }
  })
})
