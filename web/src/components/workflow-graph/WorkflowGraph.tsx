import '@xyflow/react/dist/style.css'
import './workflow-graph.css'
import { useComputedColorScheme } from '@mantine/core'
import { Background, Controls, type Edge, MarkerType, ReactFlow } from '@xyflow/react'
import { useMemo, useState } from 'react'
import type { WorkflowStep } from '../../api/types'
import { exitId, exitLabel } from './exits'
import { layoutSteps } from './layout'
import { StepNode, type StepNodeType } from './StepNode'

const nodeTypes = { step: StepNode }

export type Connection = { fromStepId: string; handle: string; toStepId: string }

/**
 * The workflow as a graph laid out top-down. Drawing from a handle to a step asks to connect that way out;
 * selecting an edge and pressing Delete asks to disconnect it. Every change goes through the caller (the API
 * decides), so the graph only ever shows what the server holds.
 */
export function WorkflowGraph({
  steps,
  selectedId,
  onSelect,
  onConnect,
  onDisconnect,
  describe,
}: {
  steps: WorkflowStep[]
  selectedId: string | undefined
  onSelect(stepId: string | undefined): void
  onConnect(connection: Connection): void
  onDisconnect(transitionId: string): void
  describe(step: WorkflowStep): { typeLabel: string; summary: string }
}) {
  const [selectedEdge, setSelectedEdge] = useState<string>()
  // React Flow's own dark colours for the pane, controls and edges.
  const colorScheme = useComputedColorScheme('light')
  const nodes = useMemo<StepNodeType[]>(() => {
    const positions = layoutSteps(steps)
    return steps.map((step) => ({
      id: step.id,
      type: 'step',
      position: positions.get(step.id) ?? { x: 0, y: 0 },
      data: { step, ...describe(step) },
      selected: step.id === selectedId,
      // Steps are deleted from the panel, where the choice to reconnect their neighbours is made.
      deletable: false,
      ariaLabel: `${describe(step).typeLabel} step ${step.name}`,
    }))
  }, [steps, selectedId, describe])
  const edges = useMemo<Edge[]>(
    () =>
      steps.flatMap((step) =>
        step.outgoingTransitions.map((transition) => ({
          id: transition.id,
          source: transition.fromStepId,
          target: transition.toStepId,
          sourceHandle: exitId(transition),
          label: exitLabel(transition) || undefined,
          selected: transition.id === selectedEdge,
          markerEnd: { type: MarkerType.ArrowClosed },
          ariaLabel: [
            `From ${step.name}`,
            exitLabel(transition),
            `to ${steps.find((other) => other.id === transition.toStepId)?.name ?? 'a step'}`,
          ]
            .filter(Boolean)
            .join(', '),
        })),
      ),
    [steps, selectedEdge],
  )
  return (
    <ReactFlow
      // Remounted when steps come or go, so the view fits the whole graph again.
      key={steps.length}
      nodes={nodes}
      edges={edges}
      nodeTypes={nodeTypes}
      nodesDraggable={false}
      fitView
      fitViewOptions={{ maxZoom: 1 }}
      minZoom={0.3}
      onNodeClick={(_, node) => onSelect(node.id)}
      onPaneClick={() => {
        onSelect(undefined)
        setSelectedEdge(undefined)
      }}
      // Edge selection is kept here (clicks, or Enter on a focused edge), so Delete can remove the selected one.
      onEdgesChange={(changes) => {
        for (const change of changes) {
          if (change.type === 'select')
            setSelectedEdge((current) => (change.selected ? change.id : current === change.id ? undefined : current))
        }
      }}
      onConnect={(connection) =>
        connection.sourceHandle &&
        onConnect({ fromStepId: connection.source, handle: connection.sourceHandle, toStepId: connection.target })
      }
      onEdgesDelete={(deleted) => {
        for (const edge of deleted) onDisconnect(edge.id)
      }}
      deleteKeyCode={['Delete', 'Backspace']}
      proOptions={{ hideAttribution: true }}
      colorMode={colorScheme}
    >
      <Background />
      <Controls showInteractive={false} />
    </ReactFlow>
  )
}
