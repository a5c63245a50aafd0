import { z } from 'zod'

/** `GET /config`: what this deployment has enabled, for the dashboard to show or hide features. */
export const configView = z.object({
  signups: z.boolean(),
  emailVerificationRequired: z.boolean(),
  billing: z.boolean(),
  storage: z.object({ s3: z.boolean() }),
  oauth: z.object({ github: z.boolean(), google: z.boolean() }),
  inbound: z.boolean(),
  transport: z.enum(['capture', 'smtp', 'ses']),
})
export type ConfigView = z.infer<typeof configView>
