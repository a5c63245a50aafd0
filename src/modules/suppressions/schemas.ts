import { z } from 'zod'
import { suppressionReason } from '../../db/schema/index.js'
import { cursorPage, cursorPageQuery } from '../../http/pagination.js'

export const suppressionListQuery = cursorPageQuery.extend({
  /** Part of the address, case-insensitive. */
  search: z.string().max(254).optional(),
  reason: z.enum(suppressionReason.enumValues).optional(),
})
export type SuppressionListQuery = z.infer<typeof suppressionListQuery>

export const suppressionView = z.object({
  email: z.string(),
  reason: z.enum(suppressionReason.enumValues),
  /** The email whose bounce or complaint put the address here. */
  emailId: z.uuid().nullable(),
  createdAt: z.date(),
})

export const suppressionPage = cursorPage(suppressionView)
export type SuppressionPage = z.infer<typeof suppressionPage>

export const suppressionParams = z.object({ email: z.string().min(1).max(320) })

/** An address added by hand (from another provider's list, or one known to be dead), with the reason it gets. */
export const suppressionCreate = z.object({
  email: z.email().max(254),
  reason: z.enum(suppressionReason.enumValues).default('bounce'),
})
export type SuppressionCreate = z.infer<typeof suppressionCreate>
