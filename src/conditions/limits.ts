/**
 * Documented limits of one condition tree (docs/decisions/0014). They bound the SQL one tree compiles to and
 * the work validation does before it gets there: a tree past them is a 422, never a slow query or a deep recursion.
 */
export const conditionLimits = {
  /** Trees nested through `groups[].conditions`, the outermost tree counting as the first. */
  maxDepth: 5,
  /** Filters in the whole tree, nested trees included. */
  maxFilters: 100,
  /** Groups in the whole tree, nested trees included. */
  maxGroups: 100,
  /** Characters of a string value (and of a data path, an event name, a field). */
  maxStringLength: 1000,
  maxFieldLength: 300,
  /** Keys in a nested data path (`data.a.b.c`). */
  maxDataPathKeys: 5,
  /** Largest `within`/`olderThan`/`triggeredWithin`/… span, in days (about 100 years). */
  maxSpanDays: 36_500,
  /** Distinct segments one tree may reach, through other segments too. */
  maxSegments: 10,
  /** Segments referencing segments: a tree's segment is one level, that segment's segment two, ... */
  maxSegmentNesting: 3,
  /** Filters once every referenced dynamic segment's condition is inlined. */
  maxInlinedFilters: 1000,
} as const
