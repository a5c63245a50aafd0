/** The condition builder's public face; pages and the workflow editor import from here only. */
export { ConditionBuilder, type ConditionBuilderProps } from './ConditionBuilder'
export { type ConditionErrors, conditionErrors, isConditionError } from './errors'
export { FilterRow } from './FilterRow'
export {
  type ConditionFilter,
  type ConditionOperator,
  type ConditionTree,
  emptyFilter,
  emptyTree,
  type FieldKind,
  kindOf,
  operatorLabel,
  operatorsByKind,
  treeOf,
  type ValueShape,
  valueShape,
} from './model'
export { useConditionOptions } from './options'
// One comparison's value (text, yes/no, date, typed scalar, number or date, span with unit), for editors of a
// single filter such as a workflow CONDITION step.
export { ValueInput } from './ValueInput'
