// Every package that the built server imports, statically or on first use, must resolve in a pruned
// install: a dev dependency imported at run time fails only when its code path is first taken.
import { readdirSync, readFileSync } from 'node:fs'
import { builtinModules, createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const dist = path.resolve(process.argv[2] ?? 'dist')
// tsc's output: `import … from 'x'`, `export … from 'x'`, `import 'x'` at a line start; `import('x')` anywhere.
const specifiers = [
  /^(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/gm,
  /^import\s*['"]([^'"]+)['"]/gm,
  /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
]
const missing = []
let checked = 0
for (const file of readdirSync(dist, { recursive: true }).filter((f) => f.endsWith('.js'))) {
  const full = path.join(dist, file)
  const source = readFileSync(full, 'utf8')
  for (const [, name] of specifiers.flatMap((pattern) => [...source.matchAll(pattern)])) {
    if (name.startsWith('.') || name.startsWith('node:') || builtinModules.includes(name)) continue
    checked++
    try {
      import.meta.resolve(name, pathToFileURL(full).href)
    } catch {
      try {
        createRequire(full).resolve(name)
      } catch {
        missing.push(`${name} (imported by dist/${file})`)
      }
    }
  }
}
if (missing.length > 0) {
  console.error(`not installed in production:\n  ${missing.join('\n  ')}`)
  process.exit(1)
}
console.log(`${checked} package imports of dist/ resolve`)
