import type { EmailMetrics } from './schemas.js'

/** Percent (two decimals) of `whole`; 0 when there is nothing to divide by. */
export function percentOf(part: number, whole: number): number {
  return whole > 0 ? Math.round((part / whole) * 10_000) / 100 : 0
}

/** The spec-style rates of email metrics, as percentages of emails sent. */
export function withRates<Metrics extends EmailMetrics>(metrics: Metrics) {
  return {
    ...metrics,
    deliveryRate: percentOf(metrics.delivered, metrics.sent),
    openRate: percentOf(metrics.opened, metrics.sent),
    clickRate: percentOf(metrics.clicked, metrics.sent),
    bounceRate: percentOf(metrics.bounced, metrics.sent),
    complaintRate: percentOf(metrics.complained, metrics.sent),
  }
}
