import { z } from 'zod'
import { cursorPage, cursorPageQuery } from '../../http/pagination.js'

export const uploadListQuery = cursorPageQuery
export type UploadListQuery = z.infer<typeof uploadListQuery>

/**
 * An upload. `url`, `key`, `filename`, `contentType` and `size` are Plunk's reply to `POST /uploads/image`;
 * `contentType` is the type found in the bytes and `size` the bytes stored, after metadata was stripped.
 */
export const uploadView = z.object({
  id: z.uuid(),
  url: z.string(),
  key: z.string(),
  filename: z.string(),
  contentType: z.string(),
  size: z.number().int(),
  width: z.number().int(),
  height: z.number().int(),
  createdAt: z.date(),
})
export type UploadView = z.infer<typeof uploadView>

export const uploadPage = cursorPage(uploadView)
export type UploadPage = z.infer<typeof uploadPage>

export const uploadIdParams = z.object({ id: z.uuid() })

/** The public file route's path, `<projectId>/<name>` of a key; a malformed one is just not found (serve.ts). */
export const uploadFileParams = z.object({ projectId: z.string(), name: z.string() })
