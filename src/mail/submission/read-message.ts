import type { SMTPServerDataStream } from 'smtp-server'

/** The DATA deadline passed before the final dot. */
export class DataDeadline extends Error {}

/**
 * The message of one DATA, read to its end even when it is over the size limit (the client only listens for our
 * reply once it has sent everything); rejects when the client leaves first or the deadline passes.
 */
export async function readMessage(
  stream: SMTPServerDataStream,
  timeoutMs: number,
): Promise<{ raw: Buffer; oversized: boolean }> {
  const deadline = setTimeout(
    () => stream.destroy(new DataDeadline(`the message took longer than ${timeoutMs} ms`)),
    timeoutMs,
  )
  try {
    const chunks: Buffer[] = []
    for await (const chunk of stream) if (!stream.sizeExceeded) chunks.push(chunk)
    return { raw: Buffer.concat(chunks), oversized: stream.sizeExceeded }
  } finally {
    clearTimeout(deadline)
  }
}
