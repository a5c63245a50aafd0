import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useProject } from '../../api/project-context'
import type { StepType, WorkflowDetail, WorkflowStep } from '../../api/types'
import { addStep, connectSteps, deleteStep, disconnectSteps, workflowQueries } from '../../api/workflows'
import { exitId, type StepExit, stepExits, transitionOf } from '../../components/workflow-graph/exits'
import { below, layoutSteps } from '../../components/workflow-graph/layout'

/** The body of a transition taking `exit` out of a step. */
function exitBody(exit: Pick<StepExit, 'condition' | 'waitOutcome'>) {
  return { condition: exit.condition ?? undefined, waitOutcome: exit.waitOutcome ?? undefined }
}

export type NewStep = { type: StepType; name: string; config: Record<string, unknown>; templateId: string | null }

/**
 * The graph edits of the editor. Each is one or a few API calls; the graph is reloaded after every one, success
 * or not, so it always shows what the server holds.
 */
export function useGraphActions(workflow: WorkflowDetail) {
  const { project } = useProject()
  const queryClient = useQueryClient()
  const onSettled = () => queryClient.invalidateQueries({ queryKey: workflowQueries.all(project.id) })
  const id = workflow.id

  const connect = useMutation({
    mutationFn: (input: { from: WorkflowStep; handle: string; toStepId: string }) => {
      const exit = stepExits(input.from).find((candidate) => exitId(candidate) === input.handle)
      if (!exit) throw new Error(`"${input.from.name}" has no such way out`)
      return connectSteps(project.id, id, { fromStepId: input.from.id, toStepId: input.toStepId, ...exitBody(exit) })
    },
    onSettled,
  })
  const disconnect = useMutation({
    mutationFn: (transitionId: string) => disconnectSteps(project.id, id, transitionId),
    onSettled,
  })
  const remove = useMutation({
    mutationFn: (input: { step: WorkflowStep; splice: boolean }) =>
      deleteStep(project.id, id, input.step.id, input.splice),
    onSettled,
  })

  /**
   * A new step on a way out of `from`. When that way already leads somewhere, the new step goes in between: the old
   * transition is replaced by from → new → old target (through the new step's first way out). The step is created
   * first, so a config the API refuses changes nothing; if the old transition cannot be removed (a 409 while an
   * execution waits on `from`), the new step is removed again.
   */
  const insert = useMutation({
    mutationFn: async (input: { from: WorkflowStep; exit: StepExit; step: NewStep }) => {
      const position = below(layoutSteps(workflow.steps).get(input.from.id))
      const created = await addStep(project.id, id, { ...input.step, position, autoConnect: false })
      const previous = transitionOf(input.from, input.exit)
      if (previous) {
        try {
          await disconnectSteps(project.id, id, previous.id)
        } catch (error) {
          await deleteStep(project.id, id, created.id, false).catch(() => undefined)
          throw error
        }
      }
      await connectSteps(project.id, id, { fromStepId: input.from.id, toStepId: created.id, ...exitBody(input.exit) })
      const [firstExit] = stepExits(created)
      if (previous && firstExit) {
        await connectSteps(project.id, id, {
          fromStepId: created.id,
          toStepId: previous.toStepId,
          ...exitBody(firstExit),
        })
      }
      return created
    },
    onSettled,
  })

  return { connect, disconnect, remove, insert }
}
