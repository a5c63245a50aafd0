/** `text` as a literal inside a LIKE pattern: PostgreSQL's default escape character is the backslash. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`)
}
