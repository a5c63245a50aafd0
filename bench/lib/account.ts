import { randomBytes } from 'node:crypto'

export type BenchAccount = { cookie: string; projectId: string; publicKey: string; secretKey: string }

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`)
  return response
}

/** Signs up a user and creates a project through the public API, as a new user would. */
export async function createBenchAccount(base: string): Promise<BenchAccount> {
  const email = `bench-${randomBytes(4).toString('hex')}@example.com`
  const signup = await postJson(`${base}/auth/signup`, { email, password: 'benchmark password' })
  const cookie = (signup.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
  const project = (await (await postJson(`${base}/users/@me/projects`, { name: 'Bench' }, { cookie })).json()) as {
    id: string
    public: string
    secret: string
  }
  return { cookie, projectId: project.id, publicKey: project.public, secretKey: project.secret }
}
