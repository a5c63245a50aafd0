/** A LIKE pattern matching any text that contains `text` literally (backslash is PostgreSQL's default escape). */
export function likeContaining(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`
}
