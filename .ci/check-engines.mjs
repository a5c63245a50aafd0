// Every installed package must declare support for the Node versions Mailroom runs on: the `engines` floor
// of package.json and the Node 24 that the npm `node` package provides.
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
// semver comes with npm's own dependency tree (fastify uses it); a check script needs no dependency of its own.
const semver = require('semver')
const manifest = JSON.parse(readFileSync('package.json', 'utf8'))
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'))
const floor = semver.minVersion(manifest.engines.node).version
const bundled = lock.packages['node_modules/node'].version
const outside = []
for (const [location, entry] of Object.entries(lock.packages)) {
  const range = entry.engines?.node
  // The lock also lists optional builds for other platforms (sharp's win32 ones); only what npm installed runs.
  if (!location || !range || !existsSync(location)) continue
  for (const version of [floor, bundled]) {
    if (!semver.satisfies(version, range)) outside.push(`${location} needs node ${range}, not ${version}`)
  }
}
if (outside.length > 0) {
  console.error(`packages used outside the Node versions they declare:\n  ${outside.join('\n  ')}`)
  process.exit(1)
}
console.log(`every package accepts node ${floor} and ${bundled}`)
