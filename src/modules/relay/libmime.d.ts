// libmime (by nodemailer's author, under mailparser and mailsplit) ships no types: only what the relay calls.
declare module 'libmime' {
  const libmime: {
    /** Decodes the RFC 2047 encoded words of a header value (`=?UTF-8?Q?Gr=C3=BC=C3=9Fe?=` → `Grüße`). */
    decodeWords(value: string): string
  }
  export = libmime
}
