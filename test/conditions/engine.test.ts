import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type ConditionTree,
  conditionTreeSchema,
  countMatchingContacts,
  loadContactSnapshot,
  prepareCondition,
} from '../../src/conditions/index.js'
import type { DatabaseHandle } from '../../src/db/client.js'
import { contacts, emails, events, segmentMemberships, segments } from '../../src/db/schema/index.js'
import {
  type ContactFixture,
  createProject,
  daysAgo,
  emailRow,
  insertContacts,
  matchedBySql,
  matchedInMemory,
  now,
  openDatabase,
  where,
} from './fixtures.js'

const hourMs = 3_600_000
const emailOf = (label: string) => `${label}@example.com`

/** One contact per kind of stored `data.v`, plus the history the event, email and segment cases look at. */
const people: ContactFixture[] = [
  { email: emailOf('missing'), createdAt: daysAgo(400) },
  { email: emailOf('null'), data: { v: null } },
  {
    email: emailOf('str'),
    data: { v: 'pro' },
    subscribed: true,
    updatedAt: new Date(now.getTime() - hourMs),
    events: [{ name: 'purchase', at: daysAgo(3) }],
    emails: [{ sentAt: daysAgo(2), openedAt: daysAgo(1) }],
  },
  {
    email: emailOf('upper'),
    data: { v: 'Pro' },
    events: [{ name: 'purchase', at: daysAgo(40) }],
    emails: [{ sentAt: daysAgo(50), bouncedAt: daysAgo(50) }],
  },
  { email: emailOf('numstr'), data: { v: '42' } },
  { email: emailOf('zeros'), data: { v: '042' }, emails: [{ sentAt: daysAgo(5) }] },
  {
    email: emailOf('num'),
    data: { v: 42 },
    subscribed: true,
    events: [
      { name: 'purchase', at: daysAgo(40) },
      { name: 'purchase', at: daysAgo(1) },
    ],
  },
  { email: emailOf('float'), data: { v: 41.5 }, events: [{ name: 'plan.upgraded', at: daysAgo(2) }] },
  {
    email: emailOf('yes'),
    data: { v: true },
    subscribed: true,
    events: [
      { name: 'signup', at: daysAgo(5) },
      { name: 'edge', at: daysAgo(7) },
    ],
  },
  { email: emailOf('no'), data: { v: false } },
  { email: emailOf('date'), data: { v: '2026-03-10' } },
  // Written on 10 March in its own zone; 11 March 03:30 in UTC.
  { email: emailOf('zoned'), data: { v: '2026-03-10T22:30:00-05:00' } },
  // No such day: both back ends roll it over to 2 March.
  { email: emailOf('rolled'), data: { v: '2026-02-30' } },
  { email: emailOf('object'), data: { v: { k: 'pro' } } },
  { email: emailOf('array'), data: { v: ['pro', 'beta'] } },
  { email: emailOf('sql'), data: { v: "'; DROP TABLE contacts; --" } },
  { email: emailOf('liquid'), data: { v: '{{ contact.email }}' } },
]
const everyone = people.map((person) => person.email).sort()
const only = (...labels: string[]) => labels.map(emailOf).sort()
const allBut = (...labels: string[]) => everyone.filter((email) => !labels.map(emailOf).includes(email))

type Segments = { staticId: string; proId: string; nestedId: string }
type Case = readonly [name: string, tree: (segments: Segments) => ConditionTree, expected: string[]]

const tree = (logic: 'AND' | 'OR', ...groups: unknown[]): ConditionTree => conditionTreeSchema.parse({ logic, groups })
const filter = (field: string, operator: string, value?: unknown, unit?: string) => ({ field, operator, value, unit })

const cases: Case[] = [
  // data values: string, number, boolean, date, JSON object and array, null and missing
  ['data equals a string: exactly, case included', () => where('data.v', 'equals', 'pro'), only('str')],
  ['data equals another case of the string', () => where('data.v', 'equals', 'Pro'), only('upper')],
  [
    'data notEquals: every present value but the equal one; never null or missing',
    () => where('data.v', 'notEquals', 'pro'),
    allBut('missing', 'null', 'str'),
  ],
  [
    'data equals a number: numbers and numeric strings',
    () => where('data.v', 'equals', 42),
    only('numstr', 'zeros', 'num'),
  ],
  [
    'data equals a numeric string: that string, and numbers',
    () => where('data.v', 'equals', '42'),
    only('numstr', 'num'),
  ],
  ['data equals a fraction', () => where('data.v', 'equals', 41.5), only('float')],
  ['data equals true: booleans only', () => where('data.v', 'equals', true), only('yes')],
  ['data equals false', () => where('data.v', 'equals', false), only('no')],
  ['data notEquals true', () => where('data.v', 'notEquals', true), allBut('missing', 'null', 'yes')],
  [
    'data equals a date: ISO strings written on that date',
    () => where('data.v', 'equals', '2026-03-10'),
    only('date', 'zoned'),
  ],
  [
    'data equals the date an impossible day rolls over to',
    () => where('data.v', 'equals', '2026-03-02'),
    only('rolled'),
  ],
  [
    'data notEquals a date',
    () => where('data.v', 'notEquals', '2026-03-10'),
    allBut('missing', 'null', 'date', 'zoned'),
  ],
  [
    'data contains: substrings (case included) and array elements',
    () => where('data.v', 'contains', 'pro'),
    only('str', 'array'),
  ],
  ['data contains SQL-looking text, as text', () => where('data.v', 'contains', "'; DROP TABLE"), only('sql')],
  [
    'data contains Liquid-looking text, as text',
    () => where('data.v', 'contains', '{{ contact.email }}'),
    only('liquid'),
  ],
  ['data notContains', () => where('data.v', 'notContains', 'pro'), allBut('missing', 'null', 'str', 'array')],
  ['data greaterThan a number', () => where('data.v', 'greaterThan', 41), only('numstr', 'zeros', 'num', 'float')],
  ['data greaterThan a numeric string', () => where('data.v', 'greaterThan', '41.9'), only('numstr', 'zeros', 'num')],
  ['data lessThan', () => where('data.v', 'lessThan', 42), only('float')],
  ['data lessThanOrEqual', () => where('data.v', 'lessThanOrEqual', 42), only('numstr', 'zeros', 'num', 'float')],
  ['data greaterThanOrEqual', () => where('data.v', 'greaterThanOrEqual', 42), only('numstr', 'zeros', 'num')],
  [
    'data greaterThan a moment: ISO strings compared as moments, zones applied',
    () => where('data.v', 'greaterThan', '2026-03-10T12:00:00Z'),
    only('zoned'),
  ],
  ['data lessThan a date', () => where('data.v', 'lessThan', '2026-03-05'), only('rolled')],
  ['data within', () => where('data.v', 'within', 15, 'days'), only('date', 'zoned')],
  ['data olderThan', () => where('data.v', 'olderThan', 15, 'days'), only('rolled')],
  ['data exists: any value but null', () => where('data.v', 'exists'), allBut('missing', 'null')],
  ['data notExists: missing or null', () => where('data.v', 'notExists'), only('missing', 'null')],
  ['a nested data path', () => where('data.v.k', 'equals', 'pro'), only('object')],
  ['a nested data path exists', () => where('data.v.k', 'exists'), only('object')],
  ['a data path does not index arrays', () => where('data.v.0', 'exists'), []],
  ['notEquals never matches a missing key', () => where('data.absent', 'notEquals', 'x'), []],
  ['notContains never matches a missing key', () => where('data.absent', 'notContains', 'x'), []],
  ['greaterThan never matches a missing key', () => where('data.absent', 'greaterThan', 1), []],
  // email, subscribed, createdAt, updatedAt
  ['email equals, whatever the case', () => where('email', 'equals', 'STR@EXAMPLE.COM'), only('str')],
  ['email notEquals', () => where('email', 'notEquals', 'str@example.com'), allBut('str')],
  ['email contains, whatever the case', () => where('email', 'contains', 'ZEROS'), only('zeros')],
  ['email notContains', () => where('email', 'notContains', '@example.com'), []],
  ['subscribed equals true', () => where('subscribed', 'equals', true), only('str', 'num', 'yes')],
  ['subscribed equals false', () => where('subscribed', 'equals', false), allBut('str', 'num', 'yes')],
  ['subscribed notEquals true', () => where('subscribed', 'notEquals', true), allBut('str', 'num', 'yes')],
  ['createdAt within', () => where('createdAt', 'within', 365, 'days'), allBut('missing')],
  ['createdAt olderThan', () => where('createdAt', 'olderThan', 365, 'days'), only('missing')],
  ['createdAt equals a date: that UTC day', () => where('createdAt', 'equals', '2026-03-18'), only('null')],
  ['createdAt notEquals a date', () => where('createdAt', 'notEquals', '2026-03-18'), allBut('null')],
  [
    'createdAt greaterThan: microseconds count',
    () => where('createdAt', 'greaterThan', '2026-03-18T05:00:00.123Z'),
    only('null'),
  ],
  [
    'createdAt lessThan the exact microsecond',
    () => where('createdAt', 'lessThan', '2026-03-18T05:00:00.123456Z'),
    allBut('null'),
  ],
  [
    'createdAt lessThanOrEqual the exact microsecond',
    () => where('createdAt', 'lessThanOrEqual', '2026-03-18T05:00:00.123456Z'),
    everyone,
  ],
  ['updatedAt within', () => where('updatedAt', 'within', 2, 'hours'), only('str')],
  // events (another project's event naming one of these contacts counts for nobody)
  ['event triggered', () => where('event.purchase', 'triggered'), only('str', 'upper', 'num')],
  ['event notTriggered', () => where('event.purchase', 'notTriggered'), allBut('str', 'upper', 'num')],
  ['event triggeredWithin', () => where('event.purchase', 'triggeredWithin', 7, 'days'), only('str', 'num')],
  [
    'event triggeredOlderThan: the latest is older',
    () => where('event.purchase', 'triggeredOlderThan', 7, 'days'),
    only('upper'),
  ],
  [
    'event notTriggeredWithin: never, or not lately',
    () => where('event.purchase', 'notTriggeredWithin', 7, 'days'),
    allBut('str', 'num'),
  ],
  [
    'triggeredWithin includes the first moment of the span',
    () => where('event.edge', 'triggeredWithin', 7, 'days'),
    only('yes'),
  ],
  ['triggeredOlderThan excludes it', () => where('event.edge', 'triggeredOlderThan', 7, 'days'), []],
  ['an event name with dots', () => where('event.plan.upgraded', 'triggered'), only('float')],
  // email activity (another project's email to one of these contacts counts for nobody)
  ['email activity triggered', () => where('email.opened', 'triggered'), only('str')],
  ["email activity under Plunk's other name", () => where('email.open', 'triggered'), only('str')],
  ['email activity triggeredWithin', () => where('email.sent', 'triggeredWithin', 7, 'days'), only('str', 'zeros')],
  ['email activity triggeredOlderThan', () => where('email.bounced', 'triggeredOlderThan', 30, 'days'), only('upper')],
  ['email activity notTriggered', () => where('email.sent', 'notTriggered'), allBut('str', 'upper', 'zeros')],
  ['email activity notTriggeredWithin', () => where('email.opened', 'notTriggeredWithin', 7, 'days'), allBut('str')],
  // segments
  [
    'memberOfSegment, static: active members',
    (s) => where(`segment.${s.staticId}`, 'memberOfSegment'),
    only('str', 'num'),
  ],
  [
    'notMemberOfSegment, static: past members are not members',
    (s) => where(`segment.${s.staticId}`, 'notMemberOfSegment'),
    allBut('str', 'num'),
  ],
  ['memberOfSegment, dynamic', (s) => where(`segment.${s.proId}`, 'memberOfSegment'), only('str')],
  ['notMemberOfSegment, dynamic', (s) => where(`segment.${s.proId}`, 'notMemberOfSegment'), allBut('str')],
  [
    'memberOfSegment, a dynamic segment built on a static one',
    (s) => where(`segment.${s.nestedId}`, 'memberOfSegment'),
    only('str', 'num', 'yes'),
  ],
  ['the segment id given as the value', (s) => where('segment', 'memberOfSegment', s.staticId), only('str', 'num')],
  // logic
  [
    'AND across groups',
    () => tree('AND', { filters: [filter('data.v', 'exists')] }, { filters: [filter('subscribed', 'equals', true)] }),
    only('str', 'num', 'yes'),
  ],
  [
    'OR across groups',
    () => tree('OR', { filters: [filter('data.v', 'equals', 'pro')] }, { filters: [filter('data.v', 'equals', 42)] }),
    only('str', 'numstr', 'zeros', 'num'),
  ],
  [
    "a group's filters AND its nested conditions",
    () =>
      tree('AND', {
        filters: [filter('subscribed', 'equals', true)],
        conditions: {
          logic: 'OR',
          groups: [
            { filters: [filter('event.purchase', 'triggeredWithin', 7, 'days')] },
            { filters: [filter('email.opened', 'triggered')] },
          ],
        },
      }),
    only('str', 'num'),
  ],
  [
    'three levels of nesting, OR and AND mixed',
    () =>
      tree(
        'OR',
        { filters: [filter('data.v', 'equals', true)] },
        {
          conditions: {
            logic: 'AND',
            groups: [
              { filters: [filter('event.purchase', 'triggered')] },
              {
                conditions: {
                  logic: 'OR',
                  groups: [
                    { filters: [filter('email.bounced', 'triggered')] },
                    { filters: [filter('subscribed', 'equals', true)] },
                  ],
                },
              },
            ],
          },
        },
      ),
    only('yes', 'str', 'upper', 'num'),
  ],
]

let database: DatabaseHandle
let projectId: string
let otherProjectId: string
let ids: Map<string, string>
let otherContactId: string
let segmentIds: Segments

beforeAll(async () => {
  database = await openDatabase()
  const { db } = database
  projectId = await createProject(db)
  otherProjectId = await createProject(db, 'Other')
  ids = await insertContacts(db, projectId, people)
  // Microseconds a JS Date cannot carry, so both back ends must keep them.
  await db.execute(
    sql`UPDATE contacts SET created_at = '2026-03-18T05:00:00.123456Z' WHERE project_id = ${projectId} AND email = ${emailOf('null')}`,
  )
  const other = await insertContacts(db, otherProjectId, [
    { email: 'other@example.com', data: { v: 'pro' }, events: [{ name: 'purchase', at: daysAgo(1) }] },
  ])
  otherContactId = other.get('other@example.com') ?? ''
  // Another project's rows that name one of this project's contacts must count for nobody.
  const stranger = ids.get(emailOf('no')) ?? ''
  await db
    .insert(events)
    .values({ projectId: otherProjectId, contactId: stranger, name: 'purchase', createdAt: daysAgo(1) })
  await db
    .insert(emails)
    .values(emailRow(otherProjectId, stranger, emailOf('no'), { sentAt: daysAgo(1), openedAt: daysAgo(1) }))

  const [staticSegment, proSegment] = await db
    .insert(segments)
    .values([
      { projectId, name: 'Static', type: 'STATIC' },
      { projectId, name: 'Pro', type: 'DYNAMIC', condition: where('data.v', 'equals', 'pro') },
    ])
    .returning({ id: segments.id })
  if (!staticSegment || !proSegment) throw new Error('no segments')
  const member = (label: string) => ids.get(emailOf(label)) ?? ''
  await db.insert(segmentMemberships).values([
    { segmentId: staticSegment.id, contactId: member('str') },
    { segmentId: staticSegment.id, contactId: member('num') },
    { segmentId: staticSegment.id, contactId: member('upper'), exitedAt: daysAgo(2) },
  ])
  const [nestedSegment] = await db
    .insert(segments)
    .values({
      projectId,
      name: 'Static members or true',
      type: 'DYNAMIC',
      condition: tree(
        'OR',
        { filters: [filter(`segment.${staticSegment.id}`, 'memberOfSegment')] },
        { filters: [filter('data.v', 'equals', true)] },
      ),
    })
    .returning({ id: segments.id })
  if (!nestedSegment) throw new Error('no segment')
  segmentIds = { staticId: staticSegment.id, proId: proSegment.id, nestedId: nestedSegment.id }
})

afterAll(async () => {
  await database?.close()
})

describe('the operator table, on both back ends', () => {
  it.each(cases)('%s', async (_name, makeTree, expected) => {
    const prepared = await prepareCondition(database.db, projectId, makeTree(segmentIds), 'condition')
    expect(await matchedBySql(database.db, projectId, prepared)).toEqual(expected)
    expect(await matchedInMemory(database.db, projectId, ids, prepared)).toEqual(expected)
    expect(await countMatchingContacts(database.db, projectId, prepared, now)).toBe(expected.length)
  })
})

describe('scoping', () => {
  it("counts only the project's contacts", async () => {
    const condition = where('data.v', 'equals', 'pro')
    const mine = await prepareCondition(database.db, projectId, condition)
    const theirs = await prepareCondition(database.db, otherProjectId, condition)
    expect(await countMatchingContacts(database.db, projectId, mine, now)).toBe(1)
    expect(await countMatchingContacts(database.db, otherProjectId, theirs, now)).toBe(1)
  })

  it("loads no snapshot of another project's contact", async () => {
    const prepared = await prepareCondition(database.db, projectId, where('data.v', 'exists'))
    expect(await loadContactSnapshot(database.db, projectId, otherContactId, prepared)).toBeUndefined()
  })

  it('leaves the tables as they were after SQL-looking values', async () => {
    const prepared = await prepareCondition(
      database.db,
      projectId,
      where('data.v', 'equals', "x'); DELETE FROM contacts; --"),
    )
    expect(await countMatchingContacts(database.db, projectId, prepared, now)).toBe(0)
    const left = await database.db.$count(contacts, eq(contacts.projectId, projectId))
    expect(left).toBe(people.length)
  })
})
