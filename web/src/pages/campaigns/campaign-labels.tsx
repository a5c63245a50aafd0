import { Badge } from '@mantine/core'
import type { Campaign } from '../../api/types'

const statusColor: Record<Campaign['status'], string> = {
  DRAFT: 'gray.7',
  SCHEDULED: 'indigo.8',
  SENDING: 'blue.9',
  SENT: 'green.9',
  CANCELLED: 'red.9',
}

export function StatusBadge({ status }: { status: Campaign['status'] }) {
  return <Badge color={statusColor[status]}>{status}</Badge>
}

export function audienceLabel(campaign: Pick<Campaign, 'audienceType' | 'segment'>): string {
  if (campaign.audienceType === 'ALL') return 'All subscribed contacts'
  if (campaign.audienceType === 'SEGMENT') return `Segment: ${campaign.segment?.name ?? 'deleted segment'}`
  return 'Filtered contacts'
}
