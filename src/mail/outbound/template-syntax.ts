export type TranslatedSource = {
  source: string
  /** Maps a position in the translated source back to the column the author wrote. */
  originalColumn(line: number, column: number): number
}

const fallbackOperator = '??'
const defaultFilter = '| default:'

type Shift = { line: number; column: number; added: number }

/**
 * `{{ name ?? "friend" }}` is Mailroom shorthand for `{{ name | default: "friend" }}`. Only output tags are
 * rewritten, and a `??` inside a quoted string stays as written.
 */
export function translateFallbacks(source: string): TranslatedSource {
  if (!source.includes(fallbackOperator)) return { source, originalColumn: (_line, column) => column }
  const shifts: Shift[] = []
  let output = ''
  let line = 1
  let column = 1
  let inOutput = false
  let quote: string | undefined
  const append = (text: string) => {
    for (const char of text) {
      output += char
      if (char === '\n') {
        line++
        column = 1
      } else column++
    }
  }
  for (let index = 0; index < source.length; index++) {
    const char = source.charAt(index)
    const pair = source.slice(index, index + 2)
    if (!inOutput && pair === '{{') {
      inOutput = true
      append(pair)
      index++
    } else if (inOutput && quote === undefined && pair === '}}') {
      inOutput = false
      append(pair)
      index++
    } else if (inOutput && quote === undefined && pair === fallbackOperator) {
      shifts.push({ line, column, added: defaultFilter.length - fallbackOperator.length })
      append(defaultFilter)
      index++
    } else {
      if (inOutput && (char === '"' || char === "'"))
        quote = quote === undefined ? char : quote === char ? undefined : quote
      append(char)
    }
  }
  return {
    source: output,
    originalColumn: (errorLine, errorColumn) =>
      errorColumn -
      shifts
        .filter((shift) => shift.line === errorLine && shift.column < errorColumn)
        .reduce((sum, shift) => sum + shift.added, 0),
  }
}
