import { execFile } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export type Finished = { exitCode: number; stdout: string; stderr: string }

/** Runs a client program to its end, whatever its exit code; `input` goes to its standard input. */
function run(command: string, args: string[], input?: string): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { maxBuffer: 64 * 1024 * 1024, timeout: 20_000 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(err)
      resolve({ exitCode: typeof err?.code === 'number' ? err.code : 0, stdout, stderr })
    })
    child.stdin?.end(input ?? '')
  })
}

export type Security = 'starttls' | 'implicit'

export type Login = { mechanism: 'PLAIN' | 'LOGIN'; username: string; password: string }

type Send = {
  port: number
  security: Security | 'none'
  login?: Login
  from: string
  to: readonly string[]
  /** A file with the whole message, CRLF line endings. */
  messageFile: string
}

/** Debian's swaks; its transcript (stdout) holds each reply as the server wrote it. It dot-stuffs the message. */
export function swaks(send: Send, extra: string[] = []): Promise<Finished> {
  return run('swaks', [
    '--server',
    '127.0.0.1',
    '--port',
    String(send.port),
    ...(send.security === 'starttls' ? ['--tls'] : send.security === 'implicit' ? ['--tls-on-connect'] : []),
    ...(send.login
      ? ['--auth', send.login.mechanism, '--auth-user', send.login.username, '--auth-password', send.login.password]
      : []),
    '--from',
    send.from,
    '--to',
    send.to.join(','),
    '--data',
    `@${send.messageFile}`,
    ...extra,
  ])
}

/** curl's SMTP client (`--ssl-reqd`); with `-v` its stderr holds the conversation ("< 250 ..."). */
export function curl(send: Send, extra: string[] = []): Promise<Finished> {
  const scheme = send.security === 'implicit' ? 'smtps' : 'smtp'
  return run('curl', [
    '--silent',
    '--show-error',
    '--verbose',
    ...(send.security === 'none' ? [] : ['--ssl-reqd']),
    // The test certificate is self-signed for relay.test; verification is nodemailer's test's business.
    '--insecure',
    '--url',
    `${scheme}://127.0.0.1:${send.port}`,
    ...(send.login
      ? ['--user', `${send.login.username}:${send.login.password}`, '--login-options', `AUTH=${send.login.mechanism}`]
      : []),
    '--mail-from',
    send.from,
    ...send.to.flatMap((address) => ['--mail-rcpt', address]),
    '--upload-file',
    send.messageFile,
    ...extra,
  ])
}

export type PythonOutcome =
  | { ok: true; refused: Record<string, [number, string]>; features: string[] }
  | { ok: false; stage: string; code: number; message: string }

const pythonClient = path.join(path.dirname(fileURLToPath(import.meta.url)), 'smtplib_client.py')

/** The machine's python3 and its smtplib (starttls, login, sendmail). */
export async function python(send: Send & { mailOptions?: string[] }): Promise<PythonOutcome & { stderr: string }> {
  const finished = await run(
    'python3',
    [pythonClient],
    JSON.stringify({
      port: send.port,
      security: send.security,
      login: send.login,
      from: send.from,
      to: send.to,
      messageFile: send.messageFile,
      mailOptions: send.mailOptions ?? [],
    }),
  )
  if (finished.exitCode !== 0) throw new Error(`python3 failed: ${finished.stderr}`)
  return { ...(JSON.parse(finished.stdout) as PythonOutcome), stderr: finished.stderr }
}

/** The replies in a client's transcript that start with `code`, e.g. "530 5.7.0 Must issue ...". */
export function repliesIn(transcript: string, code: number): string[] {
  return [...transcript.matchAll(new RegExp(`^[<~*\\s]*(${code}[ -].*)$`, 'gm'))].map((match) => match[1] ?? '')
}
