import { and, asc, eq } from 'drizzle-orm'
import { expect } from 'vitest'
import {
  templates,
  workflowExecutions,
  workflowStepExecutions,
  workflowSteps,
  workflows,
  workflowTransitions,
} from '../../../src/db/schema/index.js'
import { addVerifiedDomain, type ServerWithDns, startServerWithDns } from '../../helpers/domains.js'
import { eventually } from '../../helpers/emails.js'
import { type Account, bearer, createAccount } from '../../helpers/factories.js'
import { waitOnLoops } from '../../helpers/loops.js'
import type { TestServer, TestServerOptions } from '../../helpers/server.js'
import { type SmtpSink, startSmtpSink } from '../../helpers/smtp-sink.js'

export type MailingServer = {
  sink: SmtpSink
  env: ServerWithDns
  account: Account
  from: string
  close(): Promise<void>
}

/** A server delivering to an SMTP sink, with an account whose sender domain `<name>-<pid>.mailroom.test` is verified. */
export async function startMailingServer(name: string, options: TestServerOptions = {}): Promise<MailingServer> {
  const sink = await startSmtpSink()
  const env = await startServerWithDns({ ...options, config: { ...options.config, smtpUrl: sink.url } })
  const account = await createAccount(env.server)
  const domain = await addVerifiedDomain(env.server, env.dns, account, `${name}-${process.pid}.mailroom.test`)
  return {
    sink,
    env,
    account,
    from: `hello@${domain.domain}`,
    async close() {
      await env.close()
      await sink.close()
    },
  }
}

type StepType = (typeof workflowSteps.$inferInsert)['type']
export type StepSpec = { type: Exclude<StepType, 'TRIGGER'>; config?: Record<string, unknown>; templateId?: string }
export type EdgeSpec = [from: string, to: string, way?: { branch?: string; waitOutcome?: 'EVENT' | 'TIMEOUT' }]

/**
 * A workflow graph written straight to the tables (the definition API has tests of its own): an enabled EVENT
 * workflow on `eventName`, its TRIGGER step under the key `trigger`, the other steps under their keys.
 */
export async function insertWorkflow(
  server: TestServer,
  projectId: string,
  spec: {
    eventName: string
    allowReentry?: boolean
    enabled?: boolean
    steps: Record<string, StepSpec>
    edges: EdgeSpec[]
  },
) {
  return server.ctx.db.transaction(async (tx) => {
    const [workflow] = await tx
      .insert(workflows)
      .values({
        projectId,
        name: `On ${spec.eventName}`,
        triggerType: 'EVENT',
        triggerConfig: { eventName: spec.eventName },
        eventName: spec.eventName,
        enabled: spec.enabled ?? true,
        allowReentry: spec.allowReentry ?? false,
      })
      .returning()
    if (!workflow) throw new Error('no workflow')
    const entries = [
      ['trigger', { type: 'TRIGGER' as const, config: { eventName: spec.eventName } }] as const,
      ...Object.entries(spec.steps),
    ]
    const rows = await tx
      .insert(workflowSteps)
      .values(
        entries.map(([key, step]) => ({
          workflowId: workflow.id,
          type: step.type,
          name: key,
          position: { x: 0, y: 0 },
          config: step.config ?? {},
          templateId: 'templateId' in step ? step.templateId : undefined,
        })),
      )
      .returning({ id: workflowSteps.id, name: workflowSteps.name })
    const ids = Object.fromEntries(rows.map((row) => [row.name, row.id])) as Record<string, string>
    if (spec.edges.length > 0) {
      await tx.insert(workflowTransitions).values(
        spec.edges.map(([from, to, way], priority) => ({
          workflowId: workflow.id,
          fromStepId: ids[from] ?? from,
          toStepId: ids[to] ?? to,
          condition: way?.branch ? { branch: way.branch } : null,
          waitOutcome: way?.waitOutcome ?? null,
          priority,
        })),
      )
    }
    return { id: workflow.id, steps: ids }
  })
}

export async function insertTemplate(
  server: TestServer,
  projectId: string,
  values: { from: string; subject?: string; body?: string; type?: 'TRANSACTIONAL' | 'MARKETING' },
): Promise<string> {
  const [template] = await server.ctx.db
    .insert(templates)
    .values({
      projectId,
      name: 'Workflow mail',
      subject: values.subject ?? 'Welcome {{ data.name }}',
      body: values.body ?? '<p>Hello {{ data.name }}</p><a href="{{ unsubscribeUrl }}">Unsubscribe</a>',
      from: values.from,
      type: values.type ?? 'TRANSACTIONAL',
    })
    .returning({ id: templates.id })
  if (!template) throw new Error('no template')
  return template.id
}

export async function track(
  server: TestServer,
  account: Account,
  email: string,
  event: string,
  data: Record<string, unknown> = {},
): Promise<void> {
  const response = await server.app.inject({
    method: 'POST',
    url: '/v1/track',
    headers: bearer(account.publicKey),
    payload: { email, event, data },
  })
  expect(response.statusCode).toBe(200)
}

export function executionsOf(server: TestServer, workflowId: string) {
  return server.ctx.db
    .select()
    .from(workflowExecutions)
    .where(eq(workflowExecutions.workflowId, workflowId))
    .orderBy(asc(workflowExecutions.startedAt))
}

/** The workflow's executions once `done` holds for them (read after each run of a background loop). */
export async function executionsWhen(
  server: TestServer,
  workflowId: string,
  done: (rows: Awaited<ReturnType<typeof executionsOf>>) => boolean,
  timeout = eventually.timeout,
) {
  return waitOnLoops(async () => {
    const rows = await executionsOf(server, workflowId)
    if (!done(rows)) throw new Error(`not yet: ${rows.map((row) => row.status).join(', ')}`)
    return rows
  }, timeout)
}

/** The steps an execution ran, in order: `name:status`. */
export async function historyOf(server: TestServer, executionId: string): Promise<string[]> {
  const rows = await server.ctx.db
    .select({ name: workflowStepExecutions.stepName, status: workflowStepExecutions.status })
    .from(workflowStepExecutions)
    .where(and(eq(workflowStepExecutions.executionId, executionId)))
    .orderBy(asc(workflowStepExecutions.createdAt), asc(workflowStepExecutions.id))
  return rows.map((row) => `${row.name}:${row.status}`)
}

/** The steps an execution ran, in order, with what each recorded. */
export async function stepsOf(server: TestServer, executionId: string) {
  return server.ctx.db
    .select({
      name: workflowStepExecutions.stepName,
      type: workflowStepExecutions.stepType,
      status: workflowStepExecutions.status,
      output: workflowStepExecutions.output,
      error: workflowStepExecutions.error,
    })
    .from(workflowStepExecutions)
    .where(eq(workflowStepExecutions.executionId, executionId))
    .orderBy(asc(workflowStepExecutions.createdAt), asc(workflowStepExecutions.id))
}

/** For checks that something did not happen: long enough for the worker loop (100 ms idle) to act several times. */
export const settle = (ms = 500) => new Promise((resolve) => setTimeout(resolve, ms))
