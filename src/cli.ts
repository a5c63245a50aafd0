#!/usr/bin/env -S node --max-semi-space-size=16
import { readFileSync } from 'node:fs'
import module from 'node:module'
import { nodeVersionProblem } from './node-version.js'
import { markStartPhase } from './start-phases.js'

markStartPhase('node')

// First, before any module that needs a newer Node loads: one line that says what to do, not a stack trace.
const manifest: { engines: { node: string } } = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
)
const versionProblem = nodeVersionProblem(process.versions.node, manifest.engines.node)
if (versionProblem) {
  console.error(versionProblem)
  process.exit(1)
}

/*
 * The `mailroom` command. Three things make a start faster, so all come before the server's modules load
 * (which is why those are imported dynamically):
 * - Node's compile cache (in the OS temporary directory, checked against each file's contents): a restart
 *   reuses the compiled code of ~1,500 modules.
 * - drizzle-orm through its CommonJS build, the same code: Node 24's ES module loader parses a package's whole
 *   package.json again for every module file it loads from it, and drizzle-orm's is 180 kB for ~100 files
 *   (~300 ms of every start; its CommonJS build loads in ~110 ms).
 * - A package imported by name from our own files is resolved once, not once per importing file: Node caches a
 *   resolution per importing file, and each one reads the package's package.json again (`exports` parsed anew),
 *   for 430 such imports (170 of drizzle-orm's 180 kB). Every file of ours sits in this one directory tree, with
 *   no node_modules inside, so a name resolves the same from all of them.
 * The shebang's flag is explained in heap.ts.
 */
module.enableCompileCache?.()
const ownCode = new URL('./', import.meta.url).href
const resolvedByName = new Map<string, module.ResolveFnOutput>()
module.registerHooks?.({
  resolve(specifier, context, nextResolve) {
    const byName = context.parentURL?.startsWith(ownCode) && /^[^./#]/.test(specifier) && !specifier.includes(':')
    const key = `${specifier}\0${context.conditions.join()}`
    const known = byName ? resolvedByName.get(key) : undefined
    if (known) return { ...known, shortCircuit: true }
    const resolved =
      specifier === 'drizzle-orm' || specifier.startsWith('drizzle-orm/')
        ? nextResolve(specifier, {
            ...context,
            conditions: context.conditions.map((condition) => (condition === 'import' ? 'require' : condition)),
          })
        : nextResolve(specifier, context)
    if (byName) resolvedByName.set(key, resolved)
    return resolved
  },
})
if (process.argv[2] === 'mcp') {
  // The MCP server over stdio talks to a Mailroom over HTTP: none of the server's modules load.
  const { runStdioMcpServer } = await import('./mcp/stdio.js')
  await runStdioMcpServer(process.argv.slice(3), process.env)
} else {
  await import('./main.js')
}
