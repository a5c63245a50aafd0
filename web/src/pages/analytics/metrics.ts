/** The series the charts draw, with colours dark enough for 3:1 against white (WCAG non-text contrast). */
export const metrics = [
  { key: 'sent', label: 'Sent', color: '#364fc7' },
  { key: 'delivered', label: 'Delivered', color: '#2b8a3e' },
  { key: 'opened', label: 'Opened', color: '#e8590c' },
  { key: 'clicked', label: 'Clicked', color: '#862e9c' },
  { key: 'bounced', label: 'Bounced', color: '#c92a2a' },
] as const
