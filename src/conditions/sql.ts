import { type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../db/client.js'
import { emailActivityColumns } from './fields.js'
import { type Instant, instantOfDate, instantSql } from './instant.js'
import {
  dataValueAtSql,
  dateOfSql,
  instantOfSql,
  isPresentSql,
  jsonContainsSql,
  jsonEqualsSql,
  numberOfSql,
} from './json-values.js'
import { type Comparison, type ConditionNode, comparisonOperators, type DataTest, type Leaf } from './nodes.js'
import type { PreparedCondition } from './prepare.js'

const timestampColumns = { createdAt: 'created_at', updatedAt: 'updated_at' } as const

/**
 * The condition as one boolean SQL expression over the contacts row `contact` (e.g. sql`c`), never NULL.
 * Every value is a bound parameter; event, email and membership tests are EXISTS subqueries scoped to the
 * prepared project, on indexed columns, which PostgreSQL turns into (hash) semi-joins for whole-project counts.
 * `now` fixes what "within" and "older than" are measured from (the same `now` makes `matchesCondition` agree).
 */
export function conditionSql(prepared: PreparedCondition, contact: SQL, now: Date = new Date()): SQL {
  const nowInstant = instantOfDate(now)
  const render = (node: ConditionNode): SQL => {
    if ('all' in node) return node.all.length === 0 ? sql`true` : sql`(${sql.join(node.all.map(render), sql` AND `)})`
    if ('any' in node) return node.any.length === 0 ? sql`false` : sql`(${sql.join(node.any.map(render), sql` OR `)})`
    if ('not' in node) return sql`(NOT ${render(node.not)})`
    return leafSql(node.leaf, { projectId: prepared.projectId, contact, now: nowInstant })
  }
  return render(prepared.root)
}

type Scope = { projectId: string; contact: SQL; now: Instant }

function cutoff(scope: Scope, agoMs: number): SQL {
  return instantSql(scope.now - BigInt(agoMs) * 1000n)
}

function operator(comparison: Comparison): SQL {
  return sql.raw(comparisonOperators[comparison])
}

function leafSql(leaf: Leaf, scope: Scope): SQL {
  const { contact, projectId } = scope
  switch (leaf.kind) {
    case 'email':
      return leaf.test === 'equals'
        ? sql`(${contact}.email = ${leaf.value}::text)`
        : sql`(strpos(${contact}.email, ${leaf.value}::text) > 0)`
    case 'subscribed':
      return sql`(${contact}.subscribed = ${leaf.value}::boolean)`
    case 'timestamp': {
      const column = sql`${contact}.${sql.identifier(timestampColumns[leaf.column])}`
      const operand = 'at' in leaf.operand ? instantSql(leaf.operand.at) : cutoff(scope, leaf.operand.agoMs)
      return sql`(${column} ${operator(leaf.comparison)} ${operand})`
    }
    case 'data':
      return dataTestSql(dataValueAtSql(sql`${contact}.data`, leaf.path), leaf.test, scope)
    case 'event':
      return sql`EXISTS (SELECT 1 FROM events AS condition_event WHERE condition_event.contact_id = ${contact}.id
        AND condition_event.project_id = ${projectId}::uuid AND condition_event.name = ${leaf.name}::text
        ${leaf.withinMs === undefined ? sql`` : sql`AND condition_event.created_at >= ${cutoff(scope, leaf.withinMs)}`})`
    case 'emailActivity': {
      const column = sql`condition_email.${sql.identifier(emailActivityColumns[leaf.activity])}`
      const since = leaf.withinMs === undefined ? sql`IS NOT NULL` : sql`>= ${cutoff(scope, leaf.withinMs)}`
      return sql`EXISTS (SELECT 1 FROM emails AS condition_email WHERE condition_email.contact_id = ${contact}.id
        AND condition_email.project_id = ${projectId}::uuid AND ${column} ${since})`
    }
    case 'staticMember':
      return sql`EXISTS (SELECT 1 FROM segment_memberships AS condition_member
        JOIN segments AS condition_segment ON condition_segment.id = condition_member.segment_id
        WHERE condition_member.contact_id = ${contact}.id AND condition_member.segment_id = ${leaf.segmentId}::uuid
          AND condition_member.exited_at IS NULL AND condition_segment.project_id = ${projectId}::uuid)`
  }
}

function dataTestSql(value: SQL, test: DataTest, scope: Scope): SQL {
  switch (test.test) {
    case 'present':
      return isPresentSql(value)
    case 'equals':
      return jsonEqualsSql(value, test.value)
    case 'sameDate':
      return sql`coalesce(${dateOfSql(value)} = ${instantSql(test.date)}, false)`
    case 'contains':
      return sql`coalesce(${jsonContainsSql(value, test.value)}, false)`
    case 'compareNumber':
      return sql`coalesce(${numberOfSql(value)} ${operator(test.comparison)} ${test.value}::float8, false)`
    case 'compareInstant': {
      const operand = 'at' in test.operand ? instantSql(test.operand.at) : cutoff(scope, test.operand.agoMs)
      return sql`coalesce(${instantOfSql(value)} ${operator(test.comparison)} ${operand}, false)`
    }
  }
}

/** How many of the project's contacts match, in one query. */
export async function countMatchingContacts(
  db: Executor,
  projectId: string,
  prepared: PreparedCondition,
  now: Date = new Date(),
): Promise<number> {
  if (prepared.projectId !== projectId) throw new Error('the condition was prepared for another project')
  const result = await db.execute<{ count: number }>(sql`
    SELECT count(*)::int AS count FROM contacts AS c
    WHERE c.project_id = ${projectId}::uuid AND ${conditionSql(prepared, sql`c`, now)}`)
  return result.rows[0]?.count ?? 0
}
