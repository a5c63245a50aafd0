import type { Config } from '../../config.js'
import type { Executor } from '../../db/client.js'
import { createCaptureTransport } from './capture.js'
import { createSesTransport } from './ses.js'
import { createSmtpTransport } from './smtp.js'
import type { Transport } from './transport.js'

export type { Transport } from './transport.js'
export { TransportError } from './transport.js'

export function createTransportFromConfig(
  config: Pick<Config, 'mailTransport' | 'smtpUrl' | 'sesRegion'>,
  db: Executor,
): Transport {
  switch (config.mailTransport) {
    case 'capture':
      return createCaptureTransport(db)
    case 'smtp':
      if (!config.smtpUrl) throw new Error('SMTP_URL is required when MAIL_TRANSPORT is smtp')
      return createSmtpTransport(config.smtpUrl)
    case 'ses':
      return createSesTransport({ region: config.sesRegion })
  }
}
