import { useDebouncedValue } from '@mantine/hooks'
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { ApiError } from '../../api/client'
import { useProject } from '../../api/project-context'
import { templateQueries } from '../../api/templates'
import type { SyntaxProblem } from './BodyEditor'

/** A TEMPLATE_SYNTAX_ERROR of one field (`details.field`), with its position. */
export function syntaxProblemOf(error: unknown, field: 'subject' | 'body'): SyntaxProblem | undefined {
  if (!(error instanceof ApiError) || error.code !== 'TEMPLATE_SYNTAX_ERROR' || error.details.field !== field)
    return undefined
  const { line, column } = error.details
  return { line: Number(line) || 1, column: Number(column) || 1, message: error.message }
}

/**
 * The draft rendered by the API as it is typed (debounced): the HTML and text the chosen contact (or a recipient
 * without data) gets, or the syntax error the save would refuse.
 */
export function useTemplatePreview(subject: string, body: string, contactId: string | null, enabled = true) {
  const { project } = useProject()
  const [draft] = useDebouncedValue({ subject, body }, 300)
  return useQuery({
    ...templateQueries.preview(project.id, draft, contactId),
    enabled: enabled && draft.body !== '',
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  })
}
