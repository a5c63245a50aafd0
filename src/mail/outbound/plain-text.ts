import { compile, type DomNode, type FormatCallback } from 'html-to-text'

/** RFC 5322 §2.1.1 asks for lines of at most 78 characters; plain-text readers wrap or scroll beyond that. */
const lineWidth = 78
/** Spaces between the columns of a table laid out as text. */
const columnGap = 3
/** Below this a column wraps almost every word: a table that wide is laid out as blocks instead. */
const minColumnWidth = 12

function tagChildren(node: DomNode): DomNode[] {
  return node.children.filter((child) => child.type === 'tag')
}

/** The table's own rows, through thead/tbody/tfoot, not those of tables nested in its cells. */
function rowsOf(table: DomNode): DomNode[] {
  return tagChildren(table).flatMap((child) =>
    child.name === 'tr' ? [child] : ['thead', 'tbody', 'tfoot'].includes(child.name ?? '') ? rowsOf(child) : [],
  )
}

function cellsOf(row: DomNode): DomNode[] {
  return tagChildren(row).filter((cell) => cell.name === 'td' || cell.name === 'th')
}

function containsTable(node: DomNode): boolean {
  return tagChildren(node).some((child) => child.name === 'table' || containsTable(child))
}

/** The characters a node's text takes on one line, a link's ` [url]` included, as the converter writes it. */
function textLength(node: DomNode): number {
  if (node.type === 'text') return (node.data ?? '').replace(/\s+/g, ' ').length
  if (node.type !== 'tag' || node.name === 'img') return 0
  const inner = node.children.reduce((sum, child) => sum + textLength(child), 0)
  const href = node.name === 'a' ? String(node.attribs?.href ?? '') : ''
  return href === '' || href.startsWith('#') ? inner : inner + href.length + 3
}

/** Each column's widest cell on one line; cells spanning columns are left out (they wrap over the span). */
function naturalWidths(rows: DomNode[]): number[] {
  const widths: number[] = []
  for (const row of rows) {
    let column = 0
    for (const cell of cellsOf(row)) {
      const span = Math.max(1, Number(cell.attribs?.colspan) || 1)
      if (span === 1) widths[column] = Math.max(widths[column] ?? 0, textLength(cell))
      column += span
    }
  }
  return Array.from(widths, (width) => width ?? 0)
}

/**
 * The widest a column may be for the table to be laid out as rows of cells within the line width, or undefined
 * for a table that holds a page's layout rather than data: tables in its cells (emails nest their content in
 * layout tables), one column with text, or too many columns to fit. Narrow columns keep their width and the wide
 * ones share what is left, so a receipt's item names wrap only when they must.
 */
function dataColumnWidth(table: DomNode): number | undefined {
  const rows = rowsOf(table)
  if (rows.some((row) => cellsOf(row).some(containsTable))) return undefined
  const widths = naturalWidths(rows)
  // A column empty in every row is an image or a spacer beside the content: laid out as text, it only indents.
  if (widths.filter((width) => width > 0).length < 2) return undefined
  let room = lineWidth - columnGap * (widths.length - 1)
  let wide = widths.length
  for (const width of [...widths].sort((a, b) => a - b)) {
    // This column and every wider one could all be this wide: it keeps its width and leaves the rest.
    if (width * wide > room) break
    room -= width
    wide--
  }
  const cap = wide === 0 ? Math.max(...widths) : Math.floor(room / wide)
  return cap < minColumnWidth ? undefined : cap
}

/**
 * Tables of data (a receipt's items and prices) become one line per row with aligned columns; layout tables
 * become blocks, so the text inside them flows as paragraphs. Both through html-to-text's own formatters.
 */
const emailTable: FormatCallback = (elem, walk, builder, formatOptions) => {
  const { dataTable, block } = builder.options.formatters
  const maxColumnWidth = dataColumnWidth(elem)
  if (maxColumnWidth !== undefined && dataTable) {
    dataTable(elem, walk, builder, { ...formatOptions, maxColumnWidth, colSpacing: columnGap })
  } else {
    block?.(elem, walk, builder, formatOptions)
  }
}

const htmlToText = compile({
  wordwrap: lineWidth,
  formatters: { emailTable },
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: 'table', format: 'emailTable' },
    // In a table laid out as blocks, each row and cell starts a line of its own rather than running into the next.
    ...['tr', 'td', 'th'].map((selector) => ({ selector, format: 'block' })),
    // `text [url]`, and the url once when it is the text; `#anchor` links lead nowhere outside the HTML.
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true, noAnchorUrl: true } },
  ],
})

/** The plain-text alternative sent with an HTML body (LF line ends; the MIME part uses CRLF). */
export function plainTextOf(html: string): string {
  return htmlToText(html)
}
