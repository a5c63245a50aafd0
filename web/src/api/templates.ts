import { queryOptions } from '@tanstack/react-query'
import { api, query } from './client'
import { projectScope } from './keys'
import type { Template, TemplateCheck, TemplateInput, TemplatePage, TemplatePreview, TemplateUsage } from './types'

/** Every template list of a project starts with this key, so a save refreshes the list and both pickers. */
const all = (projectId: string) => [...projectScope(projectId), 'templates'] as const
/**
 * One template sits outside `all`: the editor sets it from the save's answer, and the lists' refresh must not ask
 * for it again (nor reset the form). Its usage hangs below it.
 */
const one = (projectId: string, id: string) => [...projectScope(projectId), 'template', id] as const

type ListParams = {
  page?: number
  pageSize: number
  search?: string
  type?: string
  sort: 'name' | 'updatedAt'
  dir?: 'asc' | 'desc'
}

/** A draft rendered by the API, with the body it was made from (an answer for an older draft can be told apart). */
export type RenderedDraft = TemplatePreview & { body: string }
type Draft = { subject: string; body: string }

export const templateQueries = {
  all,
  /** The list page and the campaign and workflow pickers: each its own parameters, so each its own key. */
  list: (projectId: string, params: ListParams) =>
    queryOptions({
      queryKey: [...all(projectId), 'list', params],
      queryFn: () => api<TemplatePage>(`/templates${query(params)}`, { projectId }),
    }),
  detail: (projectId: string, id: string) =>
    queryOptions({ queryKey: one(projectId, id), queryFn: () => api<Template>(`/templates/${id}`, { projectId }) }),
  /** Where the template is used: deleting or changing it affects these. */
  usage: (projectId: string, id: string) =>
    queryOptions({
      queryKey: [...one(projectId, id), 'usage'],
      queryFn: () => api<TemplateUsage>(`/templates/${id}/usage`, { projectId }),
    }),
  /** The saved template's pre-send findings (the editor asks again after each save). */
  check: (projectId: string, id: string) =>
    queryOptions({
      queryKey: [...one(projectId, id), 'check'],
      queryFn: () => api<TemplateCheck>(`/templates/${id}/check`, { projectId }),
    }),
  /** The draft as the contact (or a recipient without data) gets it; aborted when typing moves the key on. */
  preview: (projectId: string, draft: Draft, contactId: string | null) =>
    queryOptions({
      queryKey: [...projectScope(projectId), 'template-preview', draft.subject, draft.body, contactId],
      queryFn: async ({ signal }): Promise<RenderedDraft> => {
        const body = { ...draft, contactId: contactId ?? undefined }
        const rendered = await api<TemplatePreview>('/templates/preview', { method: 'POST', body, signal, projectId })
        return { ...rendered, body: draft.body }
      },
    }),
}

export const createTemplate = (projectId: string, body: TemplateInput) =>
  api<Template>('/templates', { method: 'POST', body, projectId })
export const updateTemplate = (projectId: string, id: string, body: TemplateInput) =>
  api<Template>(`/templates/${id}`, { method: 'PATCH', body, projectId })
export const duplicateTemplate = (projectId: string, id: string) =>
  api<Template>(`/templates/${id}/duplicate`, { method: 'POST', projectId })
