/**
 * The root of every project query's key: `[...projectScope(projectId), <resource>, ...]`, built by each resource's
 * factories. Refreshing or dropping a prefix reaches every query below it: a reset project refreshes all of its
 * pages, and verifying an address drops every project answer given before it was verified.
 */
export const projectScope = (projectId: string) => ['project', projectId] as const
export const everyProjectScope = ['project'] as const
