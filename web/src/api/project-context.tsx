import { createContext, type ReactNode, useContext } from 'react'
import type { Project } from './types'

export type ProjectContextValue = {
  project: Project
  projects: Project[]
  select(id: string): void
}

const ProjectContext = createContext<ProjectContextValue | undefined>(undefined)

export function ProjectProvider({ value, children }: { value: ProjectContextValue; children: ReactNode }) {
  return <ProjectContext.Provider value={value}>{children}</ProjectContext.Provider>
}

/** The project every page works on; pages under the project layout always have one. */
export function useProject(): ProjectContextValue {
  const value = useContext(ProjectContext)
  if (!value) throw new Error('useProject outside the project layout')
  return value
}
