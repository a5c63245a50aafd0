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
