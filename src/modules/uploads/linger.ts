import type { IncomingMessage } from 'node:http'

/** How long the rest of a refused body is read and thrown away before the connection is cut. */
const lingerMs = 10_000

/**
 * After an answer given before the request body was all read (a 413 at 10 MB of a 50 MB upload), keeps reading
 * and discarding the body for a while, then cuts the connection. Closing at once would lose the answer: the
 * client is still sending, the server's kernel answers those bytes with a reset, and the client's socket
 * drops the 413 it had not yet read. This is nginx's "lingering close". Nothing is kept, so memory does not
 * grow, and the linger bounds how long a client can keep a refused upload going.
 */
export function lingerOnUnreadBody(request: IncomingMessage): void {
  if (request.complete || request.readableEnded || request.destroyed) return
  // Destroying the request destroys its socket; `inject`'s requests have no real socket, and need no cut.
  const timer = setTimeout(() => request.destroy(), lingerMs)
  timer.unref()
  request.once('end', () => clearTimeout(timer))
  request.once('close', () => clearTimeout(timer))
  // Flowing with no consumer discards; a body still piped to the multipart parser is discarded there.
  request.resume()
}
