import { z } from 'zod'

/** Query of every cursor-paginated list: `limit` defaults to 20 and larger values are clamped to 100 (spec). */
export const cursorPageQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .transform((limit) => Math.min(limit, 100)),
  cursor: z.string().max(500).optional(),
})

/** `{data, cursor, hasMore, total}`; `total` is counted on the first page only (0 after), as the spec says. */
export function cursorPage<Item extends z.ZodType>(item: Item) {
  return z.object({ data: z.array(item), cursor: z.string(), hasMore: z.boolean(), total: z.number().int() })
}

/** Page style (`/campaigns`, `/templates`): `page` is 1-based; a `pageSize` above the maximum is clamped. */
export function offsetPageQuery(maxPageSize: number) {
  return z.object({
    page: z.coerce.number().int().min(1).default(1),
    pageSize: z.coerce
      .number()
      .int()
      .min(1)
      .default(20)
      .transform((size) => Math.min(size, maxPageSize)),
  })
}

const sortFields = ['name', 'createdAt', 'updatedAt'] as const
type SortField = (typeof sortFields)[number]

/** `sort` and `dir` of the page-style lists; unrecognised values fall back to the defaults, as the spec says. */
const listSortQuery = z.object({
  sort: z
    .string()
    .optional()
    .transform((value): SortField => (sortFields.includes(value as SortField) ? (value as SortField) : 'createdAt')),
  dir: z
    .string()
    .optional()
    .transform((value): 'asc' | 'desc' => (value === 'asc' ? 'asc' : 'desc')),
})

/** Page, sort and a free-text `search` (at most 200 characters), the query of `/campaigns` and `/templates`. */
export function searchablePageQuery(maxPageSize: number) {
  return offsetPageQuery(maxPageSize)
    .extend(listSortQuery.shape)
    .extend({ search: z.string().trim().max(200).optional() })
}

/** `{data, page, pageSize, total, totalPages}`; `total` counts the matches on every page. */
export function offsetPage<Item extends z.ZodType>(item: Item) {
  return z.object({
    data: z.array(item),
    page: z.number().int(),
    pageSize: z.number().int(),
    total: z.number().int(),
    totalPages: z.number().int(),
  })
}

/** The page-style answer for one page of rows out of `total` matches. */
export function pageOf<Row>(data: Row[], total: number, query: { page: number; pageSize: number }) {
  return { data, page: query.page, pageSize: query.pageSize, total, totalPages: Math.ceil(total / query.pageSize) }
}
