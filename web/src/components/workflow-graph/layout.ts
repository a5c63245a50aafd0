import type { WorkflowStep } from '../../api/types'
import { exitId, stepExits } from './exits'

export type Point = { x: number; y: number }

const columnWidthPx = 280
const rowHeightPx = 150

/**
 * A top-down layered layout: each step sits one row below its deepest parent (the graph has no cycles, the API
 * refuses them), and steps of a row keep the order a walk from the trigger meets them, branches in their own order
 * (yes before no, event before timeout). Rows are centred on x = 0.
 */
export function layoutSteps(steps: readonly WorkflowStep[]): Map<string, Point> {
  const byId = new Map(steps.map((step) => [step.id, step]))
  const children = (step: WorkflowStep): string[] => {
    const order = stepExits(step).map(exitId)
    return [...step.outgoingTransitions]
      .sort((a, b) => order.indexOf(exitId(a)) - order.indexOf(exitId(b)))
      .map((transition) => transition.toStepId)
      .filter((id) => byId.has(id))
  }

  // Longest-path depth, in topological order (Kahn).
  const incoming = new Map(steps.map((step) => [step.id, 0]))
  for (const step of steps) for (const child of children(step)) incoming.set(child, (incoming.get(child) ?? 0) + 1)
  const depth = new Map(steps.map((step) => [step.id, 0]))
  const ready = steps.filter((step) => incoming.get(step.id) === 0).map((step) => step.id)
  for (let id = ready.shift(); id !== undefined; id = ready.shift()) {
    const step = byId.get(id)
    if (!step) continue
    for (const child of children(step)) {
      depth.set(child, Math.max(depth.get(child) ?? 0, (depth.get(id) ?? 0) + 1))
      const left = (incoming.get(child) ?? 0) - 1
      incoming.set(child, left)
      if (left === 0) ready.push(child)
    }
  }

  // The order a depth-first walk meets the steps: the trigger first, then steps nothing leads to.
  const roots = [...steps]
    .filter((step) => !steps.some((other) => children(other).includes(step.id)))
    .sort((a, b) => Number(b.type === 'TRIGGER') - Number(a.type === 'TRIGGER'))
  const seen = new Map<string, number>()
  const visit = (id: string) => {
    const step = byId.get(id)
    if (!step || seen.has(id)) return
    seen.set(id, seen.size)
    for (const child of children(step)) visit(child)
  }
  for (const root of roots) visit(root.id)
  for (const step of steps) visit(step.id)

  const rows = new Map<number, string[]>()
  for (const step of steps) {
    const row = depth.get(step.id) ?? 0
    rows.set(row, [...(rows.get(row) ?? []), step.id])
  }
  const positions = new Map<string, Point>()
  for (const [row, ids] of rows) {
    ids.sort((a, b) => (seen.get(a) ?? 0) - (seen.get(b) ?? 0))
    ids.forEach((id, index) => {
      positions.set(id, { x: (index - (ids.length - 1) / 2) * columnWidthPx, y: row * rowHeightPx })
    })
  }
  return positions
}

/** Where a step added below `parent` first appears, before the next layout places it. */
export function below(point: Point | undefined): Point {
  return { x: point?.x ?? 0, y: (point?.y ?? 0) + rowHeightPx }
}
