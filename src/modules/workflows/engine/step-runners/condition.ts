import {
  type ConditionOperator,
  type ConditionUnit,
  type ContactSnapshot,
  conditionTreeSchema,
  loadContactSnapshot,
  matchesCondition,
  prepareCondition,
} from '../../../../conditions/index.js'
import { AppError } from '../../../../errors.js'
import { conditionFilterOf } from '../../step-config/condition-filter.js'
import { conditionConfig } from '../../step-config/config.js'
import { failed, type StepContext, type StepOf, type StepResult } from '../step-context.js'

type Comparison = { operator: ConditionOperator; value?: unknown; unit?: ConditionUnit }

/** The trigger event's payload as a stand-in contact's data (see `conditionFilterOf`). */
function payloadSnapshot(payload: Record<string, unknown>): ContactSnapshot {
  return {
    id: '',
    email: '',
    subscribed: false,
    data: payload,
    createdAt: 0n,
    updatedAt: 0n,
    lastEventAt: new Map(),
    lastEmailActivityAt: new Map(),
    staticSegmentIds: new Set(),
  }
}

/** One comparison through the condition engine's in-memory back end, so it means what a segment filter means. */
async function matches(scope: StepContext, field: string, comparison: Comparison): Promise<boolean> {
  const { filter, target } = conditionFilterOf(field, comparison)
  const tree = conditionTreeSchema.safeParse({ logic: 'AND', groups: [{ filters: [filter] }] })
  if (!tree.success) throw new AppError('VALIDATION_ERROR', tree.error.issues[0]?.message ?? 'invalid comparison')
  const prepared = await prepareCondition(scope.tx, scope.projectId, tree.data)
  if (target === 'event') return matchesCondition(prepared, payloadSnapshot(scope.execution.context))
  const contact = await scope.contact()
  const snapshot = await loadContactSnapshot(scope.tx, scope.projectId, contact.id, prepared)
  return snapshot !== undefined && matchesCondition(prepared, snapshot)
}

/** CONDITION: yes/no on one comparison, or (multi) the first matching branch, else `default`. */
export async function runCondition(step: StepOf<'CONDITION'>, scope: StepContext): Promise<StepResult> {
  const config = conditionConfig.parse(step.config)
  try {
    if (config.mode === 'multi') {
      for (const branch of config.branches) {
        if (await matches(scope, config.field, branch)) {
          return {
            kind: 'next',
            output: { field: config.field, matchedBranch: branch.name, branch: branch.id },
            outcome: { branch: branch.id },
          }
        }
      }
      return {
        kind: 'next',
        output: { field: config.field, matchedBranch: null, branch: 'default' },
        outcome: { branch: 'default' },
      }
    }
    const result = await matches(scope, config.field, config)
    const branch = result ? 'yes' : 'no'
    return {
      kind: 'next',
      output: { field: config.field, operator: config.operator, value: config.value, result, branch },
      outcome: { branch },
    }
  } catch (err) {
    // A comparison the engine refuses (checked on save, but a referenced segment may be gone since).
    if (err instanceof AppError) return failed(`The condition cannot be evaluated: ${err.message}`)
    throw err
  }
}
