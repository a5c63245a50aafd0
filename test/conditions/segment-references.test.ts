import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ConditionTree, conditionReferences, prepareCondition } from '../../src/conditions/index.js'
import type { Database, DatabaseHandle } from '../../src/db/client.js'
import { segments } from '../../src/db/schema/index.js'
import { createProject, openDatabase, where } from './fixtures.js'

let database: DatabaseHandle
let db: Database
let projectId: string
let otherProjectId: string

beforeAll(async () => {
  database = await openDatabase()
  db = database.db
  projectId = await createProject(db)
  otherProjectId = await createProject(db, 'Other')
})

afterAll(async () => {
  await database?.close()
})

async function createSegment(
  condition: ConditionTree | null,
  options: { project?: string; type?: 'DYNAMIC' | 'STATIC' } = {},
): Promise<string> {
  const [row] = await db
    .insert(segments)
    .values({ projectId: options.project ?? projectId, name: 'Segment', type: options.type ?? 'DYNAMIC', condition })
    .returning({ id: segments.id })
  if (!row) throw new Error('no segment')
  return row.id
}

const member = (segmentId: string) => where(`segment.${segmentId}`, 'memberOfSegment')
const plan = where('data.plan', 'equals', 'pro')

function twoFilters(segmentId: string): ConditionTree {
  return {
    logic: 'AND',
    groups: [
      {
        filters: [
          { field: 'data.plan', operator: 'exists' },
          { field: `segment.${segmentId}`, operator: 'memberOfSegment' },
        ],
      },
    ],
  }
}

/** The AppError a 422 answer is made from: one error, at `field`. */
function rejectedAt(field: string, message: string) {
  return expect.objectContaining({
    code: 'VALIDATION_ERROR',
    options: { errors: [{ field, code: 'custom', message: expect.stringContaining(message) }] },
  })
}

describe('segment references', () => {
  it("refuses another project's segment as if it did not exist, at the filter's path", async () => {
    const theirs = await createSegment(plan, { project: otherProjectId })
    await expect(prepareCondition(db, projectId, twoFilters(theirs), 'condition')).rejects.toEqual(
      rejectedAt('condition.groups.0.filters.1.field', `Segment ${theirs} not found`),
    )
  })

  it("refuses a segment id no segment has, under the route's body key", async () => {
    const unknown = crypto.randomUUID()
    await expect(prepareCondition(db, projectId, twoFilters(unknown), 'audienceCondition')).rejects.toEqual(
      rejectedAt('audienceCondition.groups.0.filters.1.field', 'not found'),
    )
  })

  it("refuses another project's segment given as the value", async () => {
    const theirs = await createSegment(null, { project: otherProjectId, type: 'STATIC' })
    await expect(
      prepareCondition(db, projectId, where('segment', 'memberOfSegment', theirs), 'condition'),
    ).rejects.toEqual(rejectedAt('condition.groups.0.filters.0.field', 'not found'))
  })

  it('refuses a cycle between stored segments', async () => {
    const first = await createSegment(plan)
    const second = await createSegment(member(first))
    await db
      .update(segments)
      .set({ condition: member(second) })
      .where(eq(segments.id, first))
    await expect(prepareCondition(db, projectId, twoFilters(first), 'condition')).rejects.toEqual(
      rejectedAt('condition.groups.0.filters.1.field', 'may not reference itself'),
    )
  })

  it('refuses a condition that would close a cycle through the segment being saved', async () => {
    const saved = await createSegment(plan)
    const other = await createSegment(member(saved))
    await expect(prepareCondition(db, projectId, member(other), 'condition', { segmentId: saved })).rejects.toEqual(
      rejectedAt('condition.groups.0.filters.0.field', 'may not reference itself'),
    )
    await expect(prepareCondition(db, projectId, member(saved), 'condition', { segmentId: saved })).rejects.toEqual(
      rejectedAt('condition.groups.0.filters.0.field', 'may not reference itself'),
    )
  })

  it('follows segments three levels deep, and refuses a fourth', async () => {
    const fourth = await createSegment(plan)
    const third = await createSegment(member(fourth))
    const second = await createSegment(member(third))
    const first = await createSegment(member(second))
    const prepared = await prepareCondition(db, projectId, member(second), 'condition')
    expect(prepared.root).toEqual({ leaf: { kind: 'data', path: ['plan'], test: { test: 'equals', value: 'pro' } } })
    await expect(prepareCondition(db, projectId, member(first), 'condition')).rejects.toEqual(
      rejectedAt('condition.groups.0.filters.0.field', 'at most 3 levels deep'),
    )
  })

  it('refuses a condition reaching more than ten segments', async () => {
    const ids = await Promise.all(Array.from({ length: 11 }, () => createSegment(null, { type: 'STATIC' })))
    const tree: ConditionTree = {
      logic: 'OR',
      groups: ids.map((id) => ({ filters: [{ field: `segment.${id}`, operator: 'memberOfSegment' }] })),
    }
    await expect(prepareCondition(db, projectId, tree, 'condition')).rejects.toEqual(
      rejectedAt('condition', 'at most 10 segments'),
    )
  })

  it('reports a stored condition that is no longer valid at the filter that reaches it', async () => {
    const broken = await createSegment({
      logic: 'AND',
      groups: [{ filters: [{ field: 'nickname', operator: 'equals', value: 'x' }] }],
    })
    await expect(prepareCondition(db, projectId, twoFilters(broken), 'condition')).rejects.toEqual(
      rejectedAt('condition.groups.0.filters.1.field', 'Unknown field "nickname"'),
    )
  })

  it('names the data keys, events and segments a tree references, nested conditions included', () => {
    const segmentId = crypto.randomUUID()
    const tree: ConditionTree = {
      logic: 'OR',
      groups: [
        {
          filters: [
            { field: 'data.address.city', operator: 'exists' },
            { field: 'event.purchase', operator: 'triggered' },
          ],
        },
        {
          filters: [],
          conditions: {
            logic: 'AND',
            groups: [
              {
                filters: [
                  { field: 'segment', operator: 'memberOfSegment', value: segmentId },
                  { field: 'data.plan', operator: 'exists' },
                ],
              },
            ],
          },
        },
      ],
    }
    expect(conditionReferences(tree)).toEqual({
      dataKeys: ['address', 'plan'],
      eventNames: ['purchase'],
      segmentIds: [segmentId],
    })
  })
})
