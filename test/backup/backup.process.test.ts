import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { describe, expect, it, vi } from 'vitest'
import { findFreePort } from '../../src/db/embedded.js'
import { subscriptionUrl } from '../../src/mail/outbound/subscription-links.js'
import { type CliProcess, cliSandbox } from '../helpers/cli-process.js'
import { sessionCookie, uniqueEmail } from '../helpers/factories.js'

const { start, dataDir: newDataDir } = cliSandbox()

const ready = 'Mailroom listening'
const password = 'backup test password'

type Running = { server: CliProcess; base: string }
type Installation = { email: string; cookie: string; projectId: string; secretKey: string }

async function startServer(dataDir: string): Promise<Running> {
  const port = String(await findFreePort())
  // The write load would run into the per-project rate limit.
  const server = start('start', { DATA_DIR: dataDir, PORT: port, RATE_LIMIT_PER_MINUTE: '1000000' })
  await server.waitForOutput(ready, 60_000)
  return { server, base: `http://127.0.0.1:${port}` }
}

async function finished(cli: CliProcess): Promise<{ code: number | null; output: string }> {
  const code = await cli.exited
  return { code, output: cli.output().trim() }
}

async function createInstallation(base: string): Promise<Installation> {
  const email = uniqueEmail('backup')
  const signup = await fetch(`${base}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  })
  expect(signup.status).toBe(201)
  const cookie = sessionCookie(signup.headers.get('set-cookie') ?? undefined)
  const created = await fetch(`${base}/users/@me/projects`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ name: 'Backed up' }),
  })
  expect(created.status).toBe(201)
  const project = (await created.json()) as { id: string; secret: string }
  return { email, cookie, projectId: project.id, secretKey: project.secret }
}

function createContact(base: string, secretKey: string, email: string): Promise<Response> {
  return fetch(`${base}/contacts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${secretKey}` },
    body: JSON.stringify({ email }),
  })
}

/** Contacts created by `workers` concurrent loops until stopped; `committed` holds those answered 201. */
function startWriteLoad(base: string, secretKey: string, workers: number) {
  const committed: { id: string; email: string }[] = []
  let running = true
  const loops = Array.from({ length: workers }, async () => {
    while (running) {
      const email = uniqueEmail('load')
      const response = await createContact(base, secretKey, email)
      if (response.status !== 201) throw new Error(`contact create failed: ${response.status} ${await response.text()}`)
      committed.push({ id: ((await response.json()) as { id: string }).id, email })
    }
  })
  return {
    committed,
    reached: (count: number) =>
      vi.waitFor(() => expect(committed.length).toBeGreaterThanOrEqual(count), { timeout: 30_000, interval: 20 }),
    async stop() {
      running = false
      await Promise.all(loops)
    },
  }
}

/** The addresses among `emails` that the project has no contact for. */
async function missingContacts(base: string, secretKey: string, emails: string[]): Promise<string[]> {
  const missing: string[] = []
  for (let i = 0; i < emails.length; i += 500) {
    const response = await fetch(`${base}/contacts/lookup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secretKey}` },
      body: JSON.stringify({ emails: emails.slice(i, i + 500) }),
    })
    expect(response.status).toBe(200)
    missing.push(...((await response.json()) as { notFound: string[] }).notFound)
  }
  return missing
}

async function projectIdsOf(base: string, cookie: string): Promise<string[]> {
  const response = await fetch(`${base}/users/@me/projects`, { headers: { cookie } })
  expect(response.status).toBe(200)
  return ((await response.json()) as { id: string }[]).map((project) => project.id)
}

let smallBackup: Promise<{ file: string; installation: Installation }> | undefined

/** A backup of an installation whose server is stopped: `mailroom backup` starts its PostgreSQL itself. */
function backupOfStoppedInstallation() {
  smallBackup ??= (async () => {
    const source = newDataDir('mailroom-backup-stopped-')
    const running = await startServer(source)
    const installation = await createInstallation(running.base)
    expect(await running.server.stop('SIGTERM')).toBe(0)
    const file = path.join(newDataDir('mailroom-backup-files-'), 'stopped.tar.gz')
    expect(await finished(start('backup', { DATA_DIR: source }, { args: [file] }))).toMatchObject({ code: 0 })
    // The PostgreSQL it started for the copy is stopped again and the data dir unlocked.
    expect(existsSync(path.join(source, 'postgres', 'postmaster.pid'))).toBe(false)
    expect(existsSync(path.join(source, 'mailroom.lock'))).toBe(false)
    return { file, installation }
  })()
  return smallBackup
}

describe('mailroom backup and restore', () => {
  it('restores every row committed before a backup taken under write load, with keys, sessions and signed links', async () => {
    const source = newDataDir('mailroom-backup-source-')
    const first = await startServer(source)
    const installation = await createInstallation(first.base)
    const load = startWriteLoad(first.base, installation.secretKey, 4)
    await load.reached(50)
    const committedBefore = [...load.committed]
    const firstContact = committedBefore[0]
    if (!firstContact) throw new Error('no contact written')
    // An unsubscribe link as an email sent before the backup would carry it, signed with the generated secret.
    const secret = readFileSync(path.join(source, 'secret'), 'utf8').trim()
    const unsubscribePath = subscriptionUrl('', secret, 'unsubscribe', {
      projectId: installation.projectId,
      contactId: firstContact.id,
    })
    expect((await fetch(`${first.base}${unsubscribePath}`)).status).toBe(200)

    const file = path.join(newDataDir('mailroom-backup-files-'), 'mailroom.tar.gz')
    const backup = await finished(start('backup', { DATA_DIR: source }, { args: [file] }))
    const committedByEnd = load.committed.length
    await load.stop()
    expect(backup).toMatchObject({ code: 0 })
    expect(backup.output).toMatch(
      new RegExp(`^backup written to ${file} \\(\\d+ files, [\\d.]+ MB, WAL \\S+ to \\S+\\)$`),
    )
    // The writes went on while the backup ran.
    expect(committedByEnd).toBeGreaterThan(committedBefore.length)
    expect(await first.server.stop('SIGTERM')).toBe(0)

    const target = newDataDir('mailroom-backup-target-')
    const restore = await finished(start('restore', { DATA_DIR: target }, { args: [file] }))
    expect(restore).toMatchObject({ code: 0 })
    expect(restore.output).toContain(`into ${target};`)
    const second = await startServer(target)
    expect(
      await missingContacts(
        second.base,
        installation.secretKey,
        committedBefore.map((contact) => contact.email),
      ),
    ).toEqual([])
    expect(await projectIdsOf(second.base, installation.cookie)).toEqual([installation.projectId])
    const page = await fetch(`${second.base}${unsubscribePath}`)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain(firstContact.email)
    expect(await second.server.stop('SIGTERM')).toBe(0)
  }, 240_000)

  it('backs up an installation whose server is stopped, and the restored one logs in', async () => {
    const { file, installation } = await backupOfStoppedInstallation()
    const target = newDataDir('mailroom-backup-new-')
    expect(await finished(start('restore', { DATA_DIR: target }, { args: [file] }))).toMatchObject({ code: 0 })
    const running = await startServer(target)
    const login = await fetch(`${running.base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: installation.email, password }),
    })
    expect(login.status).toBe(200)
    const cookie = sessionCookie(login.headers.get('set-cookie') ?? undefined)
    expect(await projectIdsOf(running.base, cookie)).toEqual([installation.projectId])
    expect(await running.server.stop('SIGTERM')).toBe(0)
  }, 240_000)
})

/** The tar inside a backup with one byte of the `secret` file's content changed, compressed again. */
function tamperWithSecret(backup: Buffer): Buffer {
  const tar = Buffer.from(gunzipSync(backup))
  for (let offset = 0; offset < tar.length; offset += 512) {
    if (tar.toString('utf8', offset, offset + 7) === 'secret\0') {
      const content = offset + 512
      tar[content] = tar[content] === 0x30 ? 0x31 : 0x30
      return gzipSync(tar)
    }
  }
  throw new Error('no secret entry in the backup')
}

describe('mailroom restore refuses', () => {
  it('a foreign, truncated or altered file and a non-empty DATA_DIR, changing nothing', async () => {
    const { file } = await backupOfStoppedInstallation()
    const bytes = readFileSync(file)
    const dir = newDataDir('mailroom-backup-bad-')
    const plain = path.join(dir, 'plain')
    mkdirSync(plain)
    writeFileSync(path.join(plain, 'notes.txt'), 'not a backup\n')
    const write = (name: string, content: Buffer) => {
      writeFileSync(path.join(dir, name), content)
      return path.join(dir, name)
    }
    const unpacked = gunzipSync(bytes)
    const cases = [
      {
        file: write('half.tar.gz', bytes.subarray(0, Math.floor(bytes.length / 2))),
        message: (f: string) =>
          `${f} is incomplete: it ends before the end of the backup (cut short while written or copied?). Nothing was restored.`,
      },
      {
        file: write('cut.tar.gz', gzipSync(unpacked.subarray(0, unpacked.length - 4096))),
        message: (f: string) =>
          `${f} is incomplete: it ends before the end of the backup (cut short while written or copied?). Nothing was restored.`,
      },
      {
        file: write('random.tar.gz', randomBytes(64 * 1024)),
        message: (f: string) =>
          `${f} is not a Mailroom backup (made by mailroom backup): it is not gzip-compressed. Nothing was restored.`,
      },
      {
        file: (() => {
          execFileSync('tar', ['-cf', path.join(dir, 'plain.tar'), '-C', plain, '.'])
          return path.join(dir, 'plain.tar')
        })(),
        message: (f: string) =>
          `${f} is not a Mailroom backup (made by mailroom backup): it is not gzip-compressed. Nothing was restored.`,
      },
      {
        file: (() => {
          execFileSync('tar', ['-czf', path.join(dir, 'other.tar.gz'), '-C', plain, '.'])
          return path.join(dir, 'other.tar.gz')
        })(),
        message: (f: string) =>
          `${f} is not a Mailroom backup (made by mailroom backup): it does not start with mailroom-backup.json. Nothing was restored.`,
      },
      {
        file: write('altered.tar.gz', tamperWithSecret(bytes)),
        message: (f: string) =>
          `${f} is damaged: secret does not match its size and SHA-256 in the manifest. Nothing was restored.`,
      },
    ]
    await Promise.all(
      cases.map(async (refused, index) => {
        // An existing empty DATA_DIR stays empty; one that did not exist is not left behind.
        const target =
          index % 2 === 0 ? newDataDir('mailroom-restore-refused-') : path.join(dir, `missing-${index}`, 'data')
        const restore = await finished(start('restore', { DATA_DIR: target }, { args: [refused.file] }))
        expect(restore).toEqual({ code: 1, output: refused.message(refused.file) })
        if (index % 2 === 0) expect(readdirSync(target)).toEqual([])
        else expect(existsSync(target)).toBe(false)
      }),
    )

    const occupied = newDataDir('mailroom-restore-occupied-')
    writeFileSync(path.join(occupied, 'keep.txt'), 'mine\n')
    expect(await finished(start('restore', { DATA_DIR: occupied }, { args: [file] }))).toEqual({
      code: 1,
      output:
        `${occupied} is not empty (it holds keep.txt). mailroom restore only fills an empty DATA_DIR, so it never ` +
        'overwrites an installation: give it a new DATA_DIR, or move this one away first.',
    })
    expect(readdirSync(occupied)).toEqual(['keep.txt'])
    expect(readFileSync(path.join(occupied, 'keep.txt'), 'utf8')).toBe('mine\n')
  }, 240_000)

  it('a backup in server mode, pointing to pg_dump', async () => {
    const dir = newDataDir('mailroom-backup-server-mode-')
    const file = path.join(dir, 'server.tar.gz')
    const backup = await finished(
      start('backup', { DATA_DIR: dir, DATABASE_URL: 'postgres://mailroom@127.0.0.1:1/mailroom' }, { args: [file] }),
    )
    expect(backup).toEqual({
      code: 1,
      output:
        'mailroom backup copies the embedded database in DATA_DIR. With DATABASE_URL the database is your ' +
        "PostgreSQL server's: back it up with pg_dump or its base backups (see the README, Backups).",
    })
    expect(existsSync(file)).toBe(false)
  })
})
