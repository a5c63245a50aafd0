import type { TestProject } from 'vitest/node'
import { createTestDatabase } from '../helpers/database.js'
import { startTestServer } from '../helpers/server.js'
import { ensureWebBuild, findChromium, launchBrowserServer } from './browser.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The web tier's shared server, e.g. http://127.0.0.1:PORT (provided only when chromium was found). */
    webServerUrl: string
    /** Its database, for the few checks and shortcuts a test takes there directly. */
    webDatabaseUrl: string
    /** The shared chromium, for `chromium.connect`. */
    browserWsEndpoint: string
  }
}

/**
 * The web tier's one build, one server (API and worker, on a clone of the template) and one chromium for all its
 * files. Runs after test/global-setup.ts, whose database it reads from the project. Without chromium the browser
 * tests skip, so only the build (which serve.test.ts needs) is made.
 */
export async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  await ensureWebBuild()
  const chromiumPath = findChromium()
  if (!chromiumPath) return undefined
  const { adminUrl, templateDatabase } = project.getProvidedContext()
  const databaseUrl = await createTestDatabase({ adminUrl, templateDatabase })
  const server = await startTestServer({ databaseUrl })
  const browser = await launchBrowserServer(chromiumPath).catch(async (err: unknown) => {
    await server.close()
    throw err
  })
  project.provide('webServerUrl', server.url)
  project.provide('webDatabaseUrl', databaseUrl)
  project.provide('browserWsEndpoint', browser.wsEndpoint())
  return async () => {
    await browser.close()
    await server.close()
  }
}
