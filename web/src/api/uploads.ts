import { api } from './client'
import type { Upload } from './types'

/** Stores an image for email bodies; the answer names its public URL and its size. */
export const uploadImage = (projectId: string, file: File) => {
  const form = new FormData()
  form.append('image', file)
  return api<Upload>('/uploads/image', { method: 'POST', body: form, projectId })
}
