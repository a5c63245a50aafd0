import { ActionIcon, CopyButton, Tooltip } from '@mantine/core'

/** A copy-to-clipboard button whose accessible name says what it copies. */
export function CopyValue({ value, label }: { value: string; label: string }) {
  return (
    <CopyButton value={value} timeout={1500}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? 'Copied' : `Copy ${label}`} withArrow>
          <ActionIcon
            variant="subtle"
            color={copied ? 'teal' : 'gray'}
            onClick={copy}
            aria-label={copied ? `${label} copied` : `Copy ${label}`}
          >
            <span aria-hidden style={{ fontSize: 14 }}>
              {copied ? '✓' : '⧉'}
            </span>
          </ActionIcon>
        </Tooltip>
      )}
    </CopyButton>
  )
}
