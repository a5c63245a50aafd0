/** The condition builder's public face; pages and the workflow editor import from here only. */
export { ConditionBuilder } from './ConditionBuilder'
export { type ConditionErrors, conditionErrors, isConditionError } from './errors'
export { type ConditionTree, emptyTree, treeOf } from './model'
