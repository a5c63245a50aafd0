import { httpBenchmark } from './http.js'

export const track = httpBenchmark({
  name: 'track',
  description: 'POST /v1/track with the public key: a new contact and an event per request',
  path: '/v1/track',
  key: (account) => account.publicKey,
  body: () => ({ email: '{{email}}', event: 'signed-up', data: { plan: 'pro', seats: 3 } }),
})
