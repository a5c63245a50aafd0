import { HighlightStyle, syntaxHighlighting } from '@codemirror/language'
import { tags } from '@lezer/highlight'
import { EditorView, color as oneDark, oneDarkTheme } from '@uiw/react-codemirror'

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

/**
 * CodeMirror's One Dark theme, with the colours under 4.5:1 on its active line (#2c313a) made lighter: line
 * numbers, comments and links (#7d8799), HTML attribute names (#e06c75) and keywords (#c678dd).
 */
export const accessibleDarkTheme = [
  oneDarkTheme,
  // More specific than One Dark's own rule for the gutters, which would otherwise win or lose by mounting order.
  EditorView.theme({ '&.cm-editor .cm-gutters': { color: '#a0a8b6' } }, { dark: true }),
  syntaxHighlighting(
    HighlightStyle.define(
      [
        { tag: tags.keyword, color: '#d291e4' },
        { tag: [tags.name, tags.deleted, tags.character, tags.propertyName, tags.macroName], color: '#e88991' },
        { tag: [tags.function(tags.variableName), tags.labelName], color: oneDark.malibu },
        { tag: [tags.color, tags.constant(tags.name), tags.standard(tags.name)], color: oneDark.whiskey },
        { tag: [tags.definition(tags.name), tags.separator], color: oneDark.ivory },
        {
          tag: [
            tags.typeName,
            tags.className,
            tags.number,
            tags.changed,
            tags.annotation,
            tags.modifier,
            tags.self,
            tags.namespace,
          ],
          color: oneDark.chalky,
        },
        {
          tag: [tags.operator, tags.operatorKeyword, tags.url, tags.escape, tags.regexp, tags.special(tags.string)],
          color: oneDark.cyan,
        },
        { tag: [tags.meta, tags.comment], color: '#a0a8b6' },
        { tag: tags.strong, fontWeight: 'bold' },
        { tag: tags.emphasis, fontStyle: 'italic' },
        { tag: tags.strikethrough, textDecoration: 'line-through' },
        { tag: tags.link, color: '#a0a8b6', textDecoration: 'underline' },
        { tag: tags.heading, fontWeight: 'bold', color: '#e88991' },
        { tag: [tags.atom, tags.bool, tags.special(tags.variableName)], color: oneDark.whiskey },
        { tag: [tags.processingInstruction, tags.string, tags.inserted], color: oneDark.sage },
        { tag: tags.invalid, color: oneDark.invalid },
      ],
      { themeType: 'dark' },
    ),
  ),
]
