import { createSocket } from 'node:dgram'
import { once } from 'node:events'

/** A UDP port that receives DNS questions and never answers: every lookup against it times out. */
export async function startSilentDnsServer(): Promise<{ address: string; close(): void }> {
  const socket = createSocket('udp4')
  socket.bind(0, '127.0.0.1')
  await once(socket, 'listening')
  return { address: `127.0.0.1:${socket.address().port}`, close: () => socket.close() }
}
