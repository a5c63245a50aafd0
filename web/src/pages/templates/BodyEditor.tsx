import { html } from '@codemirror/lang-html'
import { liquid } from '@codemirror/lang-liquid'
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint'
import { Input, useComputedColorScheme } from '@mantine/core'
import CodeMirror, { EditorView } from '@uiw/react-codemirror'
import { useEffect, useId, useMemo, useState } from 'react'
import { accessibleDarkTheme, accessibleHighlighting } from './highlight'

/** Where the API says the body's Liquid does not parse (1-based line and column, as TEMPLATE_SYNTAX_ERROR gives). */
export type SyntaxProblem = { line: number; column: number; message: string }

function diagnosticAt(view: EditorView, problem: SyntaxProblem): Diagnostic {
  const doc = view.state.doc
  const line = doc.line(Math.min(Math.max(problem.line, 1), doc.lines))
  const from = Math.min(line.from + Math.max(problem.column - 1, 0), line.to)
  // The whole rest of the line, so the mark is visible even when the error sits at its end.
  return { from, to: Math.max(line.to, from), severity: 'error', message: problem.message }
}

/**
 * The HTML body in CodeMirror (HTML inside Liquid highlighting), with the API's syntax error as a lint mark at
 * its line. Tab is left to the page (no indent-with-tab), so a keyboard user can move past the editor.
 */
export function BodyEditor({
  value,
  onChange,
  problem,
  error,
  onView,
}: {
  value: string
  onChange(value: string): void
  problem: SyntaxProblem | undefined
  error: string | undefined
  onView(view: EditorView): void
}) {
  const [view, setView] = useState<EditorView>()
  const dark = useComputedColorScheme('light') === 'dark'
  const labelId = useId()
  const errorId = useId()
  const extensions = useMemo(
    () => [
      liquid({ base: html() }),
      // The dark editor theme brings its own highlighting.
      dark ? [] : accessibleHighlighting,
      lintGutter(),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({
        'aria-labelledby': labelId,
        'aria-describedby': errorId,
        'aria-invalid': 'false',
        spellcheck: 'false',
      }),
    ],
    [labelId, errorId, dark],
  )
  useEffect(() => {
    if (!view) return
    view.dispatch(setDiagnostics(view.state, problem ? [diagnosticAt(view, problem)] : []))
    view.contentDOM.setAttribute('aria-invalid', problem || error ? 'true' : 'false')
  }, [view, problem, error])

  return (
    <Input.Wrapper
      label="HTML body"
      labelElement="div"
      labelProps={{ id: labelId }}
      required
      description="Liquid: {{ email }}, {{ data.plan }}, {{ name ?? &quot;fallback&quot; }}, {% if %}…{% endif %}. Values are HTML-escaped."
      error={error}
      errorProps={{ id: errorId, role: 'alert' }}
    >
      <CodeMirror
        value={value}
        onChange={onChange}
        extensions={extensions}
        theme={dark ? accessibleDarkTheme : 'light'}
        indentWithTab={false}
        minHeight="320px"
        maxHeight="560px"
        basicSetup={{ foldGutter: false, autocompletion: false, syntaxHighlighting: false }}
        onCreateEditor={(created) => {
          setView(created)
          onView(created)
        }}
        style={{
          border: `1px solid var(--mantine-color-${error ? 'error' : 'default-border'})`,
          borderRadius: 4,
          fontSize: 13,
        }}
      />
    </Input.Wrapper>
  )
}
