import { z } from 'zod'
import { type CompiledFilter, compileFilter, type FilterIssue } from './compile.js'
import { canonicalField, conditionOperators } from './fields.js'
import { conditionLimits } from './limits.js'
import type { ConditionTree, ConditionUnit } from './tree.js'

const conditionUnits = ['minutes', 'hours', 'days'] as const satisfies readonly ConditionUnit[]

function addFilterIssue(ctx: z.RefinementCtx, issue: FilterIssue, input: unknown): void {
  const common = { path: [issue.key], message: issue.message, input }
  if (issue.code === 'invalid_type') ctx.addIssue({ ...common, code: 'invalid_type', expected: issue.expected })
  else if (issue.code === 'invalid_value') ctx.addIssue({ ...common, code: 'invalid_value', values: issue.values })
  else ctx.addIssue({ ...common, code: 'custom' })
}

const filterSchema = z
  .object({
    field: z.string().min(1).max(conditionLimits.maxFieldLength),
    operator: z.enum(conditionOperators),
    value: z.unknown().optional(),
    unit: z.enum(conditionUnits).optional(),
  })
  .transform((filter) => ({ ...filter, field: canonicalField(filter.field, filter.operator) }))
  .superRefine((filter, ctx) => {
    const compiled: CompiledFilter | { issue: FilterIssue } = compileFilter(filter)
    if ('issue' in compiled) addFilterIssue(ctx, compiled.issue, filter[compiled.issue.key])
  })

const treeShape: z.ZodType<ConditionTree> = z.lazy(() =>
  z.object({
    logic: z.enum(['AND', 'OR']),
    groups: z.array(groupSchema).min(1),
  }),
)

const groupSchema = z
  .object({
    filters: z.array(filterSchema).default([]),
    conditions: treeShape.optional(),
  })
  .refine((group) => group.filters.length > 0 || group.conditions !== undefined, {
    message: 'A group needs at least one filter or nested conditions',
    path: ['filters'],
  })

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The limits, checked by one loop over the raw input before the (recursive) shape is parsed, so a tree nested
 * ten thousand levels deep or holding a million filters costs a loop that stops at the first level or filter too
 * many, never a deep recursion.
 */
function checkLimits(input: unknown, ctx: z.RefinementCtx): void {
  const pending: { tree: unknown; depth: number; path: (string | number)[] }[] = [{ tree: input, depth: 1, path: [] }]
  let filters = 0
  let groups = 0
  const tooMany = (what: string, maximum: number, path: (string | number)[]) =>
    ctx.addIssue({
      code: 'too_big',
      origin: 'array',
      maximum,
      inclusive: true,
      path,
      input,
      message: `A condition may hold at most ${maximum} ${what}, nested conditions included`,
    })
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { tree, depth, path } = next
    if (!isRecord(tree) || !Array.isArray(tree.groups)) continue
    if (depth > conditionLimits.maxDepth) {
      ctx.addIssue({
        code: 'custom',
        path,
        input: tree,
        message: `Conditions may be nested at most ${conditionLimits.maxDepth} levels deep`,
      })
      return
    }
    groups += tree.groups.length
    if (groups > conditionLimits.maxGroups) {
      tooMany('groups', conditionLimits.maxGroups, [...path, 'groups'])
      return
    }
    for (const [index, group] of tree.groups.entries()) {
      if (!isRecord(group)) continue
      if (Array.isArray(group.filters)) filters += group.filters.length
      if (filters > conditionLimits.maxFilters) {
        tooMany('filters', conditionLimits.maxFilters, [...path, 'groups', index, 'filters'])
        return
      }
      if (group.conditions !== undefined) {
        pending.push({ tree: group.conditions, depth: depth + 1, path: [...path, 'groups', index, 'conditions'] })
      }
    }
  }
}

/**
 * A condition tree (DESIGN.md §4, docs/decisions/0014): shape, known fields and operators, the value each
 * operator needs, units, and the limits. Inside a route's body schema a bad filter answers 422 with its path,
 * e.g. `condition.groups.1.filters.0.operator`.
 */
export const conditionTreeSchema: z.ZodType<ConditionTree> = z.unknown().superRefine(checkLimits).pipe(treeShape)
