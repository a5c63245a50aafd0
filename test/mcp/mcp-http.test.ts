import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type ServerWithDns, startServerWithDns } from '../helpers/domains.js'
import { type Account, bearer, createAccount } from '../helpers/factories.js'
import { invalidApiKeyBody } from '../helpers/scoping.js'
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js'
import { callTool, expectReadOnly, readTools, walkEveryTool } from './tool-walk.js'

const confirmRecipientsAbove = 2

async function connect(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'mailroom-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: bearer(key) } }))
  return client
}

describe('the MCP server over Streamable HTTP at /mcp', () => {
  let sink: SmtpSink
  let env: ServerWithDns
  let account: Account
  const clients: Client[] = []
  const connected = async (path: string, key = account.secretKey) => {
    const client = await connect(`${env.server.url}${path}`, key)
    clients.push(client)
    return client
  }

  beforeAll(async () => {
    sink = await startSmtpSink()
    env = await startServerWithDns({ config: { smtpUrl: sink.url, mcp: { readOnly: false, confirmRecipientsAbove } } })
    account = await createAccount(env.server)
  })
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()))
    sink.reset()
  })
  afterAll(async () => {
    await env.close()
    await sink.close()
  })

  it('offers every tool, and each one works end to end on the key’s own project only', async () => {
    const client = await connected('/mcp')
    const other = await createAccount(env.server)
    await walkEveryTool(client, { env, sink, account, other, confirmRecipientsAbove })
  })

  it('with ?readOnly=true offers only the read tools and refuses every write', async () => {
    await expectReadOnly(await connected('/mcp?readOnly=true'), account, env)
  })

  it('answers 401 in the standard body without a key and with the public key, and changes nothing', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
    }
    const headers = { accept: 'application/json, text/event-stream' }
    for (const auth of [{}, bearer(account.publicKey), bearer(`sk_${'0'.repeat(64)}`)]) {
      const response = await env.server.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { ...headers, ...auth },
        payload: initialize,
      })
      expect(response.statusCode).toBe(401)
      expect(response.json()).toEqual(invalidApiKeyBody)
    }
    await expect(connect(`${env.server.url}/mcp`, account.publicKey)).rejects.toThrow(/401/)
  })

  it('answers GET and DELETE with 405, as a server without sessions does', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const response = await env.server.app.inject({ method, url: '/mcp', headers: bearer(account.secretKey) })
      expect(response.statusCode).toBe(405)
      expect(response.headers.allow).toBe('POST')
    }
  })
})

describe('MCP_READ_ONLY', () => {
  it('makes /mcp offer only the read tools, whatever the URL asks', async () => {
    const env = await startServerWithDns({ worker: false, config: { mcp: { readOnly: true, confirmRecipientsAbove } } })
    try {
      const account = await createAccount(env.server)
      const client = await connect(`${env.server.url}/mcp?readOnly=false`, account.secretKey)
      try {
        await expectReadOnly(client, account, env)
        expect(readTools).toContain('list_contacts')
        expect((await callTool(client, 'list_contacts')).isError).toBe(false)
      } finally {
        await client.close()
      }
    } finally {
      await env.close()
    }
  })
})
