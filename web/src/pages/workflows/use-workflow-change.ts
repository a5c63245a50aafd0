import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useProject } from '../../api/project-context'
import { workflowQueries } from '../../api/workflows'
import { notifySuccess } from '../../components/notify'

/**
 * A change to a workflow or its executions: on success a toast says what happened and every workflow query of
 * the project is refreshed (lists, graph, executions), since one change can show on all of them. Pages not on
 * screen are refetched too: going back to the list must not first show the workflow as it was.
 */
export function useWorkflowChange<Input, Result>(
  mutationFn: (input: Input) => Promise<Result>,
  done: (result: Result, input: Input) => string,
) {
  const { project } = useProject()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn,
    onSuccess: async (result, input) => {
      notifySuccess(done(result, input))
      await queryClient.invalidateQueries({ queryKey: workflowQueries.all(project.id), refetchType: 'all' })
    },
  })
}
