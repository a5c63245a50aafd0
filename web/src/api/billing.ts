import { queryOptions } from '@tanstack/react-query'
import { api } from './client'
import { projectScope } from './keys'
import type { BillingConsumption, BillingInvoices, BillingLimits, BillingLimitsInput, SessionUrl } from './types'

const path = (projectId: string) => `/users/@me/projects/${projectId}`

export const billingQueries = {
  /** The monthly caps per category, with this month's use of each. */
  limits: (projectId: string) =>
    queryOptions({
      queryKey: [...projectScope(projectId), 'billing-limits'],
      queryFn: () => api<BillingLimits>(`${path(projectId)}/billing-limits`),
    }),
  consumption: (projectId: string) =>
    queryOptions({
      queryKey: [...projectScope(projectId), 'billing-consumption'],
      queryFn: () => api<BillingConsumption>(`${path(projectId)}/billing-consumption`),
    }),
  /** Stripe's invoices: only when the server has Stripe configured. */
  invoices: (projectId: string) =>
    queryOptions({
      queryKey: [...projectScope(projectId), 'billing-invoices'],
      queryFn: () => api<BillingInvoices>(`${path(projectId)}/billing-invoices`),
    }),
}

export const saveBillingLimits = (projectId: string, body: BillingLimitsInput) =>
  api<BillingLimits>(`${path(projectId)}/billing-limits`, { method: 'PUT', body })
/** A Stripe page to open: checkout to subscribe, or the billing portal. */
export const openBillingSession = (projectId: string, page: 'checkout' | 'billing-portal') =>
  api<SessionUrl>(`${path(projectId)}/${page}`, { method: 'POST' })
