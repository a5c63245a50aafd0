import { Badge, Text } from '@mantine/core'
import { Handle, type Node, type NodeProps, Position } from '@xyflow/react'
import type { WorkflowStep } from '../../api/types'
import { exitId, exitLabel, stepExits } from './exits'

type StepNodeData = { step: WorkflowStep; typeLabel: string; summary: string }
export type StepNodeType = Node<StepNodeData, 'step'>

/** One step: its name, type and a one-line summary; a handle per way out, labelled when there is more than one. */
export function StepNode({ data, selected }: NodeProps<StepNodeType>) {
  const { step } = data
  const exits = stepExits(step)
  return (
    <div className={`workflow-node${selected ? ' workflow-node-selected' : ''}`}>
      {step.type !== 'TRIGGER' && <Handle type="target" position={Position.Top} />}
      <Badge size="xs" color={step.type === 'TRIGGER' ? 'violet.9' : 'gray.8'} mb={4}>
        {data.typeLabel}
      </Badge>
      {/* A long event name breaks anywhere instead of leaving "Trigger:…"; what still does not fit is on hover. */}
      <Text size="sm" fw={600} lineClamp={4} title={step.name} style={{ overflowWrap: 'anywhere' }}>
        {step.name}
      </Text>
      {data.summary && (
        <Text size="xs" c="dimmed" lineClamp={2} title={data.summary} style={{ overflowWrap: 'anywhere' }}>
          {data.summary}
        </Text>
      )}
      {exits.map((exit, index) => (
        <Handle
          key={exitId(exit)}
          id={exitId(exit)}
          type="source"
          position={Position.Bottom}
          style={{ left: `${((index + 1) / (exits.length + 1)) * 100}%` }}
        >
          {exits.length > 1 && <span className="workflow-handle-label">{exitLabel(exit)}</span>}
        </Handle>
      ))}
    </div>
  )
}
