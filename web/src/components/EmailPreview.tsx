/**
 * An email body as the recipient's client shows it: in a frame with no scripts, forms, popups or access to the
 * dashboard's origin (an empty `sandbox`), so a body can never act inside the dashboard.
 */
export function EmailPreview({ html, title, height = 480 }: { html: string; title: string; height?: number }) {
  return (
    <iframe
      title={title}
      sandbox=""
      srcDoc={html}
      referrerPolicy="no-referrer"
      style={{ width: '100%', height, border: '1px solid var(--mantine-color-gray-3)', background: 'white' }}
    />
  )
}
