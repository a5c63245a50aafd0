/** The shape of a condition tree (DESIGN.md §4); validated by `conditionTreeSchema` before it is stored. */
export type ConditionUnit = 'minutes' | 'hours' | 'days'

export type ConditionFilter = { field: string; operator: string; value?: unknown; unit?: ConditionUnit }

export type ConditionGroup = { filters: ConditionFilter[]; conditions?: ConditionTree }

export type ConditionTree = { logic: 'AND' | 'OR'; groups: ConditionGroup[] }
