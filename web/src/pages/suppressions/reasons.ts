import type { Suppression } from '../../api/types'

export const reasonLabels: Record<Suppression['reason'], string> = { bounce: 'Bounce', complaint: 'Complaint' }
