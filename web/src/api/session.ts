import { queryOptions } from '@tanstack/react-query'
import { ApiError, api } from './client'
import type { User } from './types'

/** The logged-in user, or null when there is no session (401). */
export const meQuery = queryOptions({
  queryKey: ['me'],
  queryFn: async (): Promise<User | null> => {
    try {
      return await api<User>('/users/@me')
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return null
      throw error
    }
  },
  staleTime: 60_000,
})

const storageKey = 'mailroom.projectId'
const listeners = new Set<() => void>()

/** The chosen project, kept across reloads; read with useSyncExternalStore(subscribeProjectId, rememberedProjectId). */
export function rememberedProjectId(): string | undefined {
  return localStorage.getItem(storageKey) ?? undefined
}

export function rememberProjectId(id: string | undefined): void {
  if (id) localStorage.setItem(storageKey, id)
  else localStorage.removeItem(storageKey)
  for (const listener of listeners) listener()
}

export function subscribeProjectId(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}
