import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { root } from '../lib/server.js'
import type { Benchmark } from '../lib/types.js'

/** Runs `bench/delivery.ts` (outbox to a loopback SMTP sink, against raw nodemailer) in its own process. */
export const delivery: Benchmark = {
  name: 'delivery',
  description:
    'emails/s from the outbox to a loopback SMTP sink, DKIM-signed with RSA-2048, against raw pooled nodemailer to the same sink in the same run',
  async run({ quick, serverEnv }) {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'bench/delivery.ts',
        '--size',
        quick ? '200' : '5000',
        ...(quick ? ['--rounds', '1', '--warmup', '100'] : []),
      ],
      {
        cwd: root,
        env: { ...process.env, ...serverEnv },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    const [code] = await once(child, 'exit')
    if (code !== 0) throw new Error(`delivery bench exited with ${code}`)
    return JSON.parse(output) as Record<string, unknown>
  },
}
