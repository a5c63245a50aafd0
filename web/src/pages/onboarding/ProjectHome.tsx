import { useQuery } from '@tanstack/react-query'
import { Navigate } from 'react-router'
import { useProject } from '../../api/project-context'
import { setupFinished, setupStateQuery } from '../../api/setup-state'
import { QueryState } from '../../components/states'

/** A project's landing page: the setup checklist until setup is done, then the keys. */
export function ProjectHome() {
  const { project } = useProject()
  const state = useQuery(setupStateQuery(project.id))
  return (
    <QueryState query={state} label="Opening your project">
      {(setup) => <Navigate to={setupFinished(setup) ? '/keys' : '/setup'} replace />}
    </QueryState>
  )
}
