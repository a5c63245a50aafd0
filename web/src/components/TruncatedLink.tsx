import { Anchor } from '@mantine/core'
import { Link } from 'react-router'

/**
 * A link to a record named by a possibly very long text (a contact's address, a template's name): cut with an
 * ellipsis at `maw`, the full text on hover (title) and in its accessible name (the text itself stays whole).
 */
export function TruncatedLink({ to, text, maw = 320, fw }: { to: string; text: string; maw?: number; fw?: number }) {
  return (
    <Anchor component={Link} to={to} size="sm" fw={fw} display="block" maw={maw} truncate="end" title={text}>
      {text}
    </Anchor>
  )
}
