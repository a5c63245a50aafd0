import { Textarea } from '@mantine/core'
import { useState } from 'react'

/**
 * JSON typed as text: the text is kept while it does not parse (with a note saying so), and the parsed value is
 * handed up once it does. An empty field is `undefined`.
 */
export function JsonField({
  label,
  description,
  value,
  onChange,
  error,
  placeholder,
  requireObject = true,
}: {
  label: string
  description?: string
  value: unknown
  onChange(value: unknown): void
  error?: string
  placeholder?: string
  requireObject?: boolean
}) {
  const [draft, setDraft] = useState(() => (value === undefined ? '' : JSON.stringify(value, null, 2)))
  const [problem, setProblem] = useState<string>()
  const change = (next: string) => {
    setDraft(next)
    if (next.trim() === '') {
      setProblem(undefined)
      onChange(undefined)
      return
    }
    try {
      const parsed: unknown = JSON.parse(next)
      if (requireObject && (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))) {
        setProblem('Must be a JSON object, e.g. {"plan": "pro"}')
        return
      }
      setProblem(undefined)
      onChange(parsed)
    } catch {
      setProblem('Not valid JSON yet')
    }
  }
  return (
    <Textarea
      label={label}
      description={description}
      value={draft}
      onChange={(event) => change(event.currentTarget.value)}
      error={problem ?? error}
      placeholder={placeholder}
      autosize
      minRows={3}
      maxRows={10}
      styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
    />
  )
}
