import { ConfigError, loadConfig } from '../../src/config.js'

/** The least environment `loadConfig` takes without generating a secret on disk. */
export const minimalEnv = {
  SECRET: 'a-secret-of-at-least-thirty-two-characters',
  DATA_DIR: '/tmp/mailroom-config-test',
}

/** The problems `loadConfig` names for the minimal environment plus `env`; none when it is accepted. */
export function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig({ ...minimalEnv, ...env })
  } catch (err) {
    if (err instanceof ConfigError) return err.problems
    throw err
  }
  return []
}
