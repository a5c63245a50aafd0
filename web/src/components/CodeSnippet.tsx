import { Code, Group } from '@mantine/core'
import { CopyValue } from './copy'

/** A command to paste into a terminal, with a copy button; `copyValue` when the shown text hides a secret. */
export function CodeSnippet({ code, label, copyValue = code }: { code: string; label: string; copyValue?: string }) {
  return (
    <Group align="flex-start" wrap="nowrap" gap="xs">
      <Code block style={{ flex: 1, whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
        {code}
      </Code>
      <CopyValue value={copyValue} label={label} />
    </Group>
  )
}
