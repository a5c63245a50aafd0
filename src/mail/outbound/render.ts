import { Liquid, LiquidError, type Template } from 'liquidjs'
import { AppError } from '../../errors.js'
import { translateFallbacks } from './template-syntax.js'

/**
 * What a template may refer to. `data` is the contact's data merged with the request's data (non-persistent
 * values unwrapped); its keys are also visible at the top level, under the reserved names.
 */
export type RenderVariables = {
  id?: string
  email?: string
  data?: Record<string, unknown>
  unsubscribeUrl?: string
  subscribeUrl?: string
  manageUrl?: string
}

/** The plain-text alternative is derived from `html` when the message is composed (`mail/outbound/compose.ts`). */
export type RenderedEmail = { subject: string; html: string }

export type TemplateSyntaxError = { message: string; line: number; column: number }

/** Bounds on one template, so a hostile or careless one cannot stall a worker. */
const renderLimits = {
  sourceChars: 2_000_000,
  renderMs: 2_000,
  /** LiquidJS's unit: objects and characters allocated by loops, joins and the like. */
  memory: 10_000_000,
  outputChars: 10_000_000,
  cachedTemplates: 1_000,
  /** Parsed templates are kept while their sources add up to this; larger ones are parsed on every render. */
  cachedSourceChars: 20_000_000,
  cacheableSourceChars: 1_000_000,
} as const

// Templates never read files: `include`, `render` and `layout` would otherwise resolve against the disk.
const fileTags = ['include', 'render', 'layout'] as const

function createEngine(escapeOutput: boolean): Liquid {
  const engine = new Liquid({
    outputEscape: escapeOutput ? 'escape' : undefined,
    strictFilters: true,
    ownPropertyOnly: true,
    templates: {},
    parseLimit: renderLimits.sourceChars,
    renderLimit: renderLimits.renderMs,
    memoryLimit: renderLimits.memory,
  })
  for (const name of fileTags) {
    engine.registerTag(name, {
      parse() {
        throw new Error(`tag "${name}" is not available in templates`)
      },
      render() {},
    })
  }
  return engine
}

type Engine = { liquid: Liquid; cache: Map<string, Template[]>; cachedChars: number }

const htmlEngine: Engine = { liquid: createEngine(true), cache: new Map(), cachedChars: 0 }
const textEngine: Engine = { liquid: createEngine(false), cache: new Map(), cachedChars: 0 }

/** Parses once per distinct source; the least recently used parses are dropped when the cache is full. */
function parse(engine: Engine, source: string): Template[] {
  const cached = engine.cache.get(source)
  if (cached) {
    engine.cache.delete(source)
    engine.cache.set(source, cached)
    return cached
  }
  const parsed = engine.liquid.parse(translateFallbacks(source).source)
  if (source.length > renderLimits.cacheableSourceChars) return parsed
  while (
    engine.cache.size >= renderLimits.cachedTemplates ||
    engine.cachedChars + source.length > renderLimits.cachedSourceChars
  ) {
    const oldest = engine.cache.keys().next().value
    if (oldest === undefined) break
    engine.cache.delete(oldest)
    engine.cachedChars -= oldest.length
  }
  engine.cache.set(source, parsed)
  engine.cachedChars += source.length
  return parsed
}

/** The syntax error of a template, with its position in the source as written; undefined when it parses. */
export function validateTemplate(source: string): TemplateSyntaxError | undefined {
  if (source.length > renderLimits.sourceChars) {
    return { message: `template is longer than ${renderLimits.sourceChars} characters`, line: 1, column: 1 }
  }
  const translated = translateFallbacks(source)
  try {
    textEngine.liquid.parse(translated.source)
    return undefined
  } catch (err) {
    if (!(err instanceof LiquidError)) throw err
    const [line = 1, column = 1] = err.token?.getPosition() ?? []
    const message = (err.originalError?.message ?? err.message).replace(/, line:\d+, col:\d+$/, '')
    return { message, line, column: translated.originalColumn(line, column) }
  }
}

function renderScope(variables: RenderVariables): Record<string, unknown> {
  const data = variables.data ?? {}
  const scope: Record<string, unknown> = { ...data, data, id: variables.id, email: variables.email }
  // Read through getters: the caller's URLs may themselves be getters that sign only when a template uses them.
  for (const name of ['unsubscribeUrl', 'subscribeUrl', 'manageUrl'] as const) {
    Object.defineProperty(scope, name, { enumerable: true, get: () => variables[name] })
  }
  return scope
}

async function render(engine: Engine, source: string, variables: RenderVariables): Promise<string> {
  let output: string
  try {
    output = await engine.liquid.render(parse(engine, source), renderScope(variables))
  } catch (err) {
    if (!(err instanceof LiquidError)) throw err
    const [line, column] = err.token?.getPosition() ?? []
    throw new AppError(
      'TEMPLATE_RENDER_ERROR',
      `Template could not be rendered: ${err.originalError?.message ?? err.message}`,
      {
        details: { line, column },
      },
    )
  }
  if (output.length > renderLimits.outputChars) {
    throw new AppError(
      'TEMPLATE_RENDER_ERROR',
      `Rendered template is longer than ${renderLimits.outputChars} characters`,
    )
  }
  return output
}

/** HTML body: every variable is HTML-escaped unless the template says `| raw`. */
export function renderHtml(source: string, variables: RenderVariables): Promise<string> {
  return render(htmlEngine, source, variables)
}

/** Plain text (webhook bodies, text parts): no escaping. */
export function renderText(source: string, variables: RenderVariables): Promise<string> {
  return render(textEngine, source, variables)
}

/** A subject is a header: line breaks from variables are folded into spaces so they cannot start a new header. */
export async function renderSubject(source: string, variables: RenderVariables): Promise<string> {
  return (await renderText(source, variables)).replace(/[\r\n]+/g, ' ').trim()
}

/** Subject and HTML of one email. */
export async function renderEmail(
  content: { subject: string; body: string },
  variables: RenderVariables,
): Promise<RenderedEmail> {
  const [subject, html] = await Promise.all([
    renderSubject(content.subject, variables),
    renderHtml(content.body, variables),
  ])
  return { subject, html }
}
