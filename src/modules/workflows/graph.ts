import { AppError } from '../../errors.js'
import type { StepRow, TransitionRow } from './views.js'

/*
 * The graph rules, over a workflow's steps and transitions loaded (under the workflow's lock) into memory:
 * workflows are small (`maxStepsPerWorkflow`), and one read of the edges answers every question below.
 */

export type GraphStep = Pick<StepRow, 'id' | 'type' | 'name' | 'config'>
export type GraphEdge = Pick<TransitionRow, 'fromStepId' | 'toStepId' | 'condition' | 'waitOutcome'>
type WaitOutcome = NonNullable<TransitionRow['waitOutcome']>

/** One way out of a step, as a transition names it: a CONDITION branch, a WAIT_FOR_EVENT outcome, or neither. */
export type StepExit = { condition: { branch: string } | null; waitOutcome: WaitOutcome | null }

const plainExit: StepExit = { condition: null, waitOutcome: null }

/** A single CONDITION goes `yes` or `no`; a multi one takes a branch by id, or `default` when none matches. */
function branchesOf(config: Record<string, unknown>): string[] {
  if (config.mode !== 'multi' || !Array.isArray(config.branches)) return ['yes', 'no']
  const ids = config.branches.flatMap((branch: unknown) =>
    typeof branch === 'object' && branch !== null && 'id' in branch && typeof branch.id === 'string' ? [branch.id] : [],
  )
  return [...ids, 'default']
}

function waitHasTimeout(config: Record<string, unknown>): boolean {
  return typeof config.timeout === 'number' && config.timeout > 0
}

/** Every way out of the step: none for EXIT, one for plain steps. */
export function exitsOf(step: GraphStep): StepExit[] {
  switch (step.type) {
    case 'EXIT':
      return []
    case 'CONDITION':
      return branchesOf(step.config).map((branch) => ({ condition: { branch }, waitOutcome: null }))
    case 'WAIT_FOR_EVENT':
      return [
        { condition: null, waitOutcome: 'EVENT' },
        ...(waitHasTimeout(step.config) ? [{ condition: null, waitOutcome: 'TIMEOUT' as const }] : []),
      ]
    default:
      return [plainExit]
  }
}

/** A step with one way out, whatever its transitions say: neither a branch nor a wait, and not an EXIT. */
function hasOneWay(step: GraphStep): boolean {
  return step.type !== 'EXIT' && step.type !== 'CONDITION' && step.type !== 'WAIT_FOR_EVENT'
}

function sameExit(a: StepExit, b: StepExit): boolean {
  return a.waitOutcome === b.waitOutcome && (a.condition?.branch ?? null) === (b.condition?.branch ?? null)
}

/** The step's ways out that no transition takes yet (a plain step has none left once it has any transition). */
export function freeExits(step: GraphStep, outgoing: readonly GraphEdge[]): StepExit[] {
  if (hasOneWay(step)) return outgoing.length === 0 ? [plainExit] : []
  return exitsOf(step).filter((exit) => !outgoing.some((edge) => sameExit(edge, exit)))
}

function refuse(message: string): AppError {
  return new AppError('BAD_REQUEST', message)
}

/** `event`/`timeout` as a branch name: how older Plunk clients named a wait's outcomes. */
function outcomeOfBranch(branch: string | undefined): WaitOutcome | undefined {
  const upper = branch?.toUpperCase()
  return upper === 'EVENT' || upper === 'TIMEOUT' ? upper : undefined
}

/** The way out of `from` a new transition asks for, or a 400 saying why the step has no such way. */
export function requestedExit(
  from: GraphStep,
  input: { condition?: { branch: string } | null; waitOutcome?: WaitOutcome | null },
): StepExit {
  const branch = input.condition?.branch
  const outcome = input.waitOutcome ?? undefined
  switch (from.type) {
    case 'EXIT':
      throw refuse('An exit step ends the flow and cannot be connected to another step')
    case 'WAIT_FOR_EVENT': {
      if (branch !== undefined && (outcome !== undefined || !outcomeOfBranch(branch))) {
        throw refuse('Wait routes use waitOutcome (EVENT or TIMEOUT), not transition conditions')
      }
      const chosen = outcome ?? outcomeOfBranch(branch)
      if (!chosen) throw refuse('WAIT_FOR_EVENT transitions require an EVENT or TIMEOUT outcome')
      if (chosen === 'TIMEOUT' && !waitHasTimeout(from.config)) {
        throw refuse('A TIMEOUT transition requires a timeout on the wait step')
      }
      return { condition: null, waitOutcome: chosen }
    }
    case 'CONDITION': {
      if (outcome !== undefined) throw refuse('Condition branches cannot declare a wait outcome')
      const branches = branchesOf(from.config)
      if (branch === undefined) {
        throw refuse(`A transition from a CONDITION step needs condition.branch, one of: ${branches.join(', ')}`)
      }
      if (!branches.includes(branch)) {
        throw refuse(`"${from.name}" has no branch "${branch}"; its branches are: ${branches.join(', ')}`)
      }
      return { condition: { branch }, waitOutcome: null }
    }
    default:
      if (outcome !== undefined) throw refuse('Only WAIT_FOR_EVENT steps can declare a wait outcome')
      if (branch !== undefined) throw refuse('Only CONDITION steps can declare a transition condition')
      return plainExit
  }
}

/** 400 when a transition already takes this way out of `from`. */
export function assertExitFree(from: GraphStep, exit: StepExit, outgoing: readonly GraphEdge[]): void {
  if (freeExits(from, outgoing).some((free) => sameExit(free, exit))) return
  if (exit.condition) {
    throw refuse(`A transition for the "${exit.condition.branch}" branch already exists from "${from.name}"`)
  }
  if (exit.waitOutcome) throw refuse(`The ${exit.waitOutcome} route of "${from.name}" already has a transition`)
  throw refuse(`"${from.name}" already leads to another step. Disconnect it first, or use a condition step to branch.`)
}

/** Whether `target` can be reached from `start` by following transitions. */
export function reaches(edges: readonly GraphEdge[], start: string, target: string): boolean {
  const next = new Map<string, string[]>()
  for (const edge of edges) next.set(edge.fromStepId, [...(next.get(edge.fromStepId) ?? []), edge.toStepId])
  const seen = new Set([start])
  const queue = [start]
  for (let current = queue.shift(); current !== undefined; current = queue.shift()) {
    if (current === target) return true
    for (const following of next.get(current) ?? []) {
      if (!seen.has(following)) {
        seen.add(following)
        queue.push(following)
      }
    }
  }
  return false
}

/**
 * 400 when a step's new config leaves one of its transitions without a way out to take (a removed branch, a
 * TIMEOUT route without a timeout): the graph must stay readable by the engine.
 */
export function assertTransitionsFit(step: GraphStep, outgoing: readonly GraphEdge[]): void {
  if (hasOneWay(step)) return
  const exits = exitsOf(step)
  for (const edge of outgoing) {
    if (exits.some((exit) => sameExit(exit, edge))) continue
    const route = edge.condition ? `"${edge.condition.branch}" branch` : `${edge.waitOutcome} route`
    throw refuse(`The new config leaves the ${route} of "${step.name}" with no way out; delete that transition first`)
  }
}
