import { describe, expect, it } from 'vitest'
import { plainTextOf } from '../../../src/mail/outbound/plain-text.js'
import { receiptHtml, receiptText } from '../../fixtures/receipt.js'

function longestLine(text: string): number {
  return Math.max(...text.split('\n').map((line) => line.length))
}

describe('the plain-text alternative', () => {
  it('lays a receipt table out as one row per line with aligned cells, inside the layout tables around it', () => {
    expect(plainTextOf(receiptHtml)).toBe(receiptText)
  })

  it('keeps link targets once: `text [url]`, the url alone when it is the text, nothing for #anchors', () => {
    const text = plainTextOf(
      '<p><a href="https://example.org/a">Read more</a> · <a href="https://example.org/b">https://example.org/b</a>' +
        ' · <a href="#top">back to top</a></p>',
    )
    expect(text).toBe('Read more [https://example.org/a] · https://example.org/b · back to top')
  })

  it('wraps paragraphs and wide tables within 78 characters', () => {
    const sentence = 'Spring is here, and with it a collection of things you did not know you needed. '
    const cell = 'A cell with more text than half a line can hold, so that it has to wrap.'
    const text = plainTextOf(
      `<p>${sentence.repeat(4)}</p><table><tr><td>${cell}</td><td>${cell}</td><td>€1</td></tr></table>`,
    )
    expect(longestLine(text)).toBeLessThanOrEqual(78)
    // Still three cells per row: the third column holds the price next to the wrapped text.
    expect(text.split('\n').filter((line) => line.trimEnd().endsWith('€1'))).toHaveLength(1)
  })

  it('lets text flow as paragraphs in a layout table with an image column or a single column', () => {
    const text = plainTextOf(
      '<table><tr><td><img src="a.png" alt=""></td><td><p>Our spring collection is here.</p><p>Come and see.</p></td></tr></table>' +
        '<table><tr><td>Only one column</td></tr><tr><td>and a second row</td></tr></table>',
    )
    expect(text).toBe('Our spring collection is here.\n\nCome and see.\n\nOnly one column\n\nand a second row')
  })

  it('lays out a table whose cells would be narrower than a word or two as blocks', () => {
    const cells = Array.from({ length: 8 }, (_, index) => `<td>Column number ${index} text</td>`).join('')
    const text = plainTextOf(`<table><tr>${cells}</tr></table>`)
    expect(longestLine(text)).toBeLessThanOrEqual(78)
    expect(text).toContain('Column number 0 text')
  })
})
