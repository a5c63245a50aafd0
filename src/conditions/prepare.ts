import { and, eq, inArray } from 'drizzle-orm'
import type { Executor } from '../db/client.js'
import { segments } from '../db/schema/index.js'
import { validationError } from '../errors.js'
import { compileFilter } from './compile.js'
import type { EmailActivity } from './fields.js'
import { conditionLimits } from './limits.js'
import type { ConditionNode } from './nodes.js'
import { conditionReferences } from './references.js'
import type { ConditionFilter, ConditionTree } from './tree.js'

/** A tree ready for both back ends: compiled, with every referenced segment resolved. */
export type PreparedCondition = {
  projectId: string
  root: ConditionNode
  /** What a contact snapshot must hold to evaluate `root` (`loadContactSnapshot`). */
  needs: { eventNames: string[]; emailActivities: EmailActivity[]; staticSegmentIds: string[] }
}

type Segment = { id: string; type: 'DYNAMIC' | 'STATIC'; condition: ConditionTree | null }
type Path = (string | number)[]

class Rejected extends Error {
  constructor(
    readonly path: Path,
    message: string,
  ) {
    super(message)
  }
}

/**
 * Compiles a validated tree and resolves its segment filters: a static segment becomes a membership test, a
 * dynamic one its own condition, inlined (recursively). Segments are loaded a level at a time (at most
 * `maxSegmentNesting` queries). A segment that is missing or another project's, a cycle, nesting or size past
 * the limits: 422 with the path of the filter at fault, under `path` (the body key, e.g. `condition`).
 * `options.segmentId` is the segment whose condition this is, so a condition reaching it again is a cycle.
 */
export async function prepareCondition(
  db: Executor,
  projectId: string,
  tree: ConditionTree,
  path?: string,
  options: { segmentId?: string } = {},
): Promise<PreparedCondition> {
  try {
    const self = options.segmentId?.toLowerCase()
    const context: Context = { segments: await loadSegments(db, projectId, tree), leaves: 0, self }
    const root = compileTree(context, tree, [], self ? [self] : [], undefined)
    return { projectId, root, needs: needsOf(root) }
  } catch (err) {
    if (!(err instanceof Rejected)) throw err
    const field = [...(path ? [path] : []), ...err.path].join('.')
    throw validationError([{ field, code: 'custom', message: err.message }])
  }
}

type Context = { segments: Map<string, Segment>; leaves: number; self: string | undefined }

/**
 * `chain`: the segments whose conditions enclose this tree (a cycle when one comes again); `blame`: the filter of
 * the caller's tree that reached them, where errors inside a referenced segment are reported.
 */
function compileTree(
  context: Context,
  tree: ConditionTree,
  at: Path,
  chain: string[],
  blame: Path | undefined,
): ConditionNode {
  const groups = tree.groups.map((group, g) => {
    const parts = group.filters.map((filter, f) =>
      compileFilterAt(context, filter, [...at, 'groups', g, 'filters', f], chain, blame),
    )
    if (group.conditions)
      parts.push(compileTree(context, group.conditions, [...at, 'groups', g, 'conditions'], chain, blame))
    return parts.length === 1 && parts[0] ? parts[0] : { all: parts }
  })
  if (groups.length === 1 && groups[0]) return groups[0]
  return tree.logic === 'AND' ? { all: groups } : { any: groups }
}

function compileFilterAt(
  context: Context,
  filter: ConditionFilter,
  at: Path,
  chain: string[],
  blame: Path | undefined,
): ConditionNode {
  const compiled = compileFilter(filter)
  if ('issue' in compiled) {
    if (blame)
      throw new Rejected(blame, `A referenced segment's condition is no longer valid: ${compiled.issue.message}`)
    throw new Rejected([...at, compiled.issue.key], compiled.issue.message)
  }
  if ('node' in compiled) {
    context.leaves += 1
    if (context.leaves > conditionLimits.maxInlinedFilters) {
      throw new Rejected(
        blame ?? at,
        `The condition and the segments it references hold more than ${conditionLimits.maxInlinedFilters} filters`,
      )
    }
    return compiled.node
  }
  const { segmentId, negate } = compiled.segment
  const fieldPath = blame ?? [...at, 'field']
  if (chain.includes(segmentId)) {
    throw new Rejected(fieldPath, 'A segment may not reference itself, directly or through other segments')
  }
  // The chain starts with the segment being saved, when there is one; it is not a level of nesting.
  const depth = context.self ? chain.length - 1 : chain.length
  if (depth >= conditionLimits.maxSegmentNesting) {
    throw new Rejected(
      fieldPath,
      `Segments may reference segments at most ${conditionLimits.maxSegmentNesting} levels deep`,
    )
  }
  const segment = context.segments.get(segmentId)
  if (!segment) throw new Rejected(fieldPath, `Segment ${segmentId} not found`)
  if (segment.type === 'DYNAMIC' && !segment.condition)
    throw new Rejected(fieldPath, `Segment ${segmentId} has no condition`)
  const node: ConditionNode =
    segment.condition && segment.type === 'DYNAMIC'
      ? compileTree(context, segment.condition, [], [...chain, segmentId], fieldPath)
      : { leaf: { kind: 'staticMember', segmentId } }
  return negate ? { not: node } : node
}

/** The project's segments the tree reaches, one query per level of nesting; stops past the limits. */
async function loadSegments(db: Executor, projectId: string, tree: ConditionTree): Promise<Map<string, Segment>> {
  const loaded = new Map<string, Segment>()
  let wanted = conditionReferences(tree).segmentIds
  for (let level = 0; level < conditionLimits.maxSegmentNesting && wanted.length > 0; level++) {
    if (loaded.size + wanted.length > conditionLimits.maxSegments) {
      throw new Rejected([], `A condition may reach at most ${conditionLimits.maxSegments} segments`)
    }
    const rows = await db
      .select({ id: segments.id, type: segments.type, condition: segments.condition })
      .from(segments)
      .where(and(eq(segments.projectId, projectId), inArray(segments.id, wanted)))
    for (const row of rows) loaded.set(row.id, row)
    const next = new Set<string>()
    for (const row of rows) {
      if (row.type !== 'DYNAMIC' || !row.condition) continue
      for (const id of conditionReferences(row.condition).segmentIds) if (!loaded.has(id)) next.add(id)
    }
    wanted = [...next]
  }
  return loaded
}

function needsOf(root: ConditionNode): PreparedCondition['needs'] {
  const eventNames = new Set<string>()
  const emailActivities = new Set<EmailActivity>()
  const staticSegmentIds = new Set<string>()
  const walk = (node: ConditionNode): void => {
    if ('all' in node) node.all.forEach(walk)
    else if ('any' in node) node.any.forEach(walk)
    else if ('not' in node) walk(node.not)
    else if (node.leaf.kind === 'event') eventNames.add(node.leaf.name)
    else if (node.leaf.kind === 'emailActivity') emailActivities.add(node.leaf.activity)
    else if (node.leaf.kind === 'staticMember') staticSegmentIds.add(node.leaf.segmentId)
  }
  walk(root)
  return { eventNames: [...eventNames], emailActivities: [...emailActivities], staticSegmentIds: [...staticSegmentIds] }
}
