import {
  bigint,
  date,
  integer,
  pgEnum,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core'
import { createdAt, updatedAt } from './columns.js'
import { projects } from './foundation.js'

const projectReference = () =>
  uuid()
    .notNull()
    .references(() => projects.id, { onDelete: 'cascade' })

/** What an email is billed as: the four caps of a project (Plunk's WORKFLOW, CAMPAIGN, TRANSACTIONAL, INBOUND). */
export const billingCategory = pgEnum('billing_category', ['transactional', 'campaigns', 'workflows', 'inbound'])

/**
 * A project's billing: its monthly caps per category (null: no cap) and, when Stripe is on, its customer and
 * subscription. `payment_paused_at` is set while a failed payment holds the project's sending, so a paid
 * invoice lifts only a pause that billing itself put on.
 */
export const projectBilling = pgTable('project_billing', {
  projectId: projectReference().primaryKey(),
  transactionalLimit: integer(),
  campaignsLimit: integer(),
  workflowsLimit: integer(),
  inboundLimit: integer(),
  stripeCustomerId: text().unique(),
  stripeSubscriptionId: text().unique(),
  subscriptionStatus: text(),
  paymentPausedAt: timestamp({ withTimezone: true, mode: 'date' }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
})

/**
 * Emails accepted per project, calendar month (UTC) and category, counted in the transaction that queues them:
 * consumption is read from here, never from `emails`. A count is spread over `shard` rows (summed on read) so that
 * concurrent sends of one project lock different rows and commit together instead of one after another.
 * `warned_at` (on shard 0): when the 80 % warning of this period went out.
 */
export const billingUsage = pgTable(
  'billing_usage',
  {
    projectId: projectReference(),
    period: date({ mode: 'string' }).notNull(),
    category: billingCategory().notNull(),
    shard: smallint().notNull().default(0),
    used: bigint({ mode: 'number' }).notNull().default(0),
    warnedAt: timestamp({ withTimezone: true, mode: 'date' }),
  },
  (table) => [primaryKey({ columns: [table.projectId, table.period, table.category, table.shard] })],
)

/**
 * Stripe events already applied, by Stripe's event id: Stripe delivers at least once and a replayed request
 * finds its id here and changes nothing. Goes with its project.
 */
export const billingWebhookEvents = pgTable('billing_webhook_events', {
  id: text().primaryKey(),
  type: text().notNull(),
  projectId: uuid().references(() => projects.id, { onDelete: 'cascade' }),
  receivedAt: createdAt(),
})
