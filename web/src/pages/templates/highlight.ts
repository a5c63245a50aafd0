import { HighlightStyle, syntaxHighlighting } from '@codemirror/language'
import { tags } from '@lezer/highlight'

/**
 * CodeMirror's default colours, with those under 4.5:1 on white or on the active line's tint made darker:
 * HTML tag names (#085), class names (#167), escapes (#e40) and invalid tokens (#f00).
 */
export const accessibleHighlighting = syntaxHighlighting(
  HighlightStyle.define([
    { tag: tags.meta, color: '#404740' },
    { tag: tags.link, textDecoration: 'underline' },
    { tag: tags.heading, textDecoration: 'underline', fontWeight: 'bold' },
    { tag: tags.emphasis, fontStyle: 'italic' },
    { tag: tags.strong, fontWeight: 'bold' },
    { tag: tags.keyword, color: '#708' },
    { tag: [tags.atom, tags.bool, tags.url, tags.contentSeparator, tags.labelName], color: '#219' },
    { tag: [tags.literal, tags.inserted], color: '#164' },
    { tag: [tags.string, tags.deleted], color: '#a11' },
    { tag: [tags.regexp, tags.escape, tags.special(tags.string)], color: '#a33000' },
    { tag: tags.definition(tags.variableName), color: '#00c' },
    { tag: tags.local(tags.variableName), color: '#30a' },
    { tag: [tags.typeName, tags.namespace], color: '#06603f' },
    { tag: tags.className, color: '#125e6b' },
    { tag: [tags.special(tags.variableName), tags.macroName], color: '#256' },
    { tag: tags.definition(tags.propertyName), color: '#00c' },
    { tag: tags.comment, color: '#940' },
    { tag: tags.invalid, color: '#b00' },
  ]),
)
