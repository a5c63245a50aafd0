import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { nodeVersionProblem } from '../../src/node-version.js'

describe('the Node.js version check', () => {
  it('accepts the floor and anything newer, and reads package.json engines', () => {
    for (const version of ['22.19.0', '22.20.1', '23.0.0', '24.21.0']) {
      expect(nodeVersionProblem(version, '>=22.19')).toBeUndefined()
    }
    const { engines } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
    expect(nodeVersionProblem(process.versions.node, engines.node)).toBeUndefined()
  })

  it('names the version needed, the one found and how to run it instead', () => {
    expect(nodeVersionProblem('20.20.2', '>=22.19')).toBe(
      'Mailroom needs Node.js >=22.19 but found 20.20.2: install Node.js 24, or run it through npm with the Node 24 ' +
        'that npm ci installed (npm start, or npm exec -- node --max-semi-space-size=16 dist/cli.js <command>)',
    )
    expect(nodeVersionProblem('22.18.9', '>=22.19')).toMatch(/^Mailroom needs Node.js >=22.19 but found 22.18.9:/)
  })
})
