import { and, asc, desc, eq, ilike, or, type SQL, sql } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { likeContaining } from '../../db/like.js'
import { campaigns } from '../../db/schema/index.js'
import { pageOf } from '../../http/pagination.js'
import type { CampaignListQuery, CampaignPage } from './schemas.js'
import { selectCampaignsWithSegment, toCampaignView } from './view.js'

/** `GET /campaigns`: one page, filtered by status and by a case-insensitive search of name, subject and sender. */
export async function listCampaigns(db: Executor, projectId: string, query: CampaignListQuery): Promise<CampaignPage> {
  const filters: (SQL | undefined)[] = [eq(campaigns.projectId, projectId)]
  if (query.status) filters.push(eq(campaigns.status, query.status))
  if (query.search) {
    const pattern = likeContaining(query.search)
    filters.push(or(ilike(campaigns.name, pattern), ilike(campaigns.subject, pattern), ilike(campaigns.from, pattern)))
  }
  const where = and(...filters)
  const order = query.dir === 'asc' ? asc : desc
  const [rows, [count]] = await Promise.all([
    selectCampaignsWithSegment(db)
      .where(where)
      .orderBy(order(campaigns[query.sort]), order(campaigns.id))
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize),
    db.select({ total: sql<number>`count(*)::int` }).from(campaigns).where(where),
  ])
  return pageOf(
    rows.map((row) => toCampaignView(row.campaign, row.segment)),
    count?.total ?? 0,
    query,
  )
}
