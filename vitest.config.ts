import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

/*
 * The suite in four tiers, by what a file needs (its name says which):
 * - unit     `*.unit.test.ts`: no database, no server.
 * - api      every other file outside test/web: servers in this process on a clone of the template database.
 * - process  `*.process.test.ts`: spawned processes (the built CLI), crashes, backups, a production install.
 * - web      test/web: the dashboard in chromium, against one server and one browser for the whole tier.
 * unit and api share the test processes (no per-file isolation: a file must leave no state behind) on every core;
 * process and web then run one file at a time, as their files each load the machine by themselves.
 */
const cores = availableParallelism()
const databaseSetup = 'test/global-setup.ts'

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.unit.test.ts'],
          isolate: false,
          maxWorkers: cores,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'api',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.unit.test.ts', 'test/**/*.process.test.ts', 'test/web/**'],
          globalSetup: [databaseSetup],
          isolate: false,
          maxWorkers: cores,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'process',
          include: ['test/**/*.process.test.ts'],
          // Then the CLI's dist, built once for the run's spawned processes.
          globalSetup: [databaseSetup, 'test/process-global-setup.ts'],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'web',
          include: ['test/web/**/*.test.ts'],
          // After the database's: the build, server and chromium its files share (test/web/global-setup.ts).
          globalSetup: [databaseSetup, 'test/web/global-setup.ts'],
          // One process imports the app and playwright once for every file, not once per file; a file leaves
          // nothing behind (its hooks close its browser connection and its handle on the server).
          isolate: false,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
          // What a page shows after a click waits on the server and a render: on a busy two-core machine that is
          // more than the second `expect.poll` gives by default (a template picked from the list once filled the
          // subject after it). A poll that never succeeds still fails.
          expect: { poll: { timeout: 10_000 } },
        },
      },
    ],
  },
})
