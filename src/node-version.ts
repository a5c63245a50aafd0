/**
 * Why this Node.js cannot run Mailroom, or undefined when it can. `engines` is package.json's `engines.node`,
 * a `>=MAJOR[.MINOR[.PATCH]]` floor. Imports nothing, so the CLI can ask before loading a module that needs
 * the newer Node (undici dies on Node 20 with a stack trace instead).
 */
export function nodeVersionProblem(found: string, engines: string): string | undefined {
  const floor = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(engines.trim())
  if (!floor) throw new Error(`package.json engines.node: expected ">=MAJOR.MINOR", found "${engines}"`)
  const needed = floor.slice(1).map((part) => Number(part ?? 0))
  const have = found.replace(/^v/, '').split('.').map(Number)
  for (let index = 0; index < 3; index++) {
    const [mine, floorPart] = [have[index] ?? 0, needed[index] ?? 0]
    if (mine > floorPart) return undefined
    if (mine < floorPart) {
      return (
        `Mailroom needs Node.js ${engines.trim()} but found ${found.replace(/^v/, '')}: install Node.js 24, or run it ` +
        'through npm with the Node 24 that npm ci installed (npm start, or ' +
        'npm exec -- node --max-semi-space-size=16 dist/cli.js <command>)'
      )
    }
  }
  return undefined
}
