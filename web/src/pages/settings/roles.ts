import type { MemberRole, Project } from '../../api/types'

// The README's role table: admins manage settings, members and billing; only owners reset, delete and manage owners.
export const canAdminister = (project: Project) => project.role !== 'MEMBER'
export const isOwner = (project: Project) => project.role === 'OWNER'

const roleLabels: Record<MemberRole, string> = { OWNER: 'Owner', ADMIN: 'Admin', MEMBER: 'Member' }
export const roleLabel = (role: MemberRole) => roleLabels[role]
