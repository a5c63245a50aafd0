/** Member roles, least first. Apart from auth.ts so zod schemas (and the dashboard's types) need no fastify. */
export const memberRoles = ['MEMBER', 'ADMIN', 'OWNER'] as const
export type MemberRole = (typeof memberRoles)[number]

export function roleAtLeast(role: MemberRole, minimum: MemberRole): boolean {
  return memberRoles.indexOf(role) >= memberRoles.indexOf(minimum)
}
