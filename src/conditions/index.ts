/** The condition engine (DESIGN.md §4, docs/decisions/0014): one tree, two back ends (SQL and in memory). */
export { matchesCondition } from './evaluate.js'
export { type ConditionOperator, conditionOperators } from './fields.js'
export { prepareCondition } from './prepare.js'
export { type ConditionReferenceTarget, conditionReferences, conditionRefersTo } from './references.js'
export { conditionTreeSchema } from './schema.js'
export { type ContactSnapshot, loadContactSnapshot } from './snapshot.js'
export { conditionSql, countMatchingContacts } from './sql.js'
export type { ConditionFilter, ConditionTree, ConditionUnit } from './tree.js'
