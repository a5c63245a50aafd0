import { createBrowserRouter, Navigate } from 'react-router'
import { AppLayout } from './components/AppLayout'
import { RouteError } from './components/RouteError'
import { LoginPage } from './pages/auth/LoginPage'
import { SignupPage } from './pages/auth/SignupPage'
import { ProjectHome } from './pages/onboarding/ProjectHome'
import { NewProjectPage } from './pages/projects/NewProjectPage'

/** Heavier pages load on first visit, so signing in downloads only what the first screen needs. */
export const router = createBrowserRouter(
  [
    { path: '/login', element: <LoginPage />, errorElement: <RouteError /> },
    { path: '/signup', element: <SignupPage />, errorElement: <RouteError /> },
    // The pages the account emails link to, and the forgotten-password form: no session needed.
    {
      path: '/verify-email',
      errorElement: <RouteError />,
      lazy: async () => ({ Component: (await import('./pages/auth/VerifyEmailPage')).VerifyEmailPage }),
    },
    {
      path: '/forgot-password',
      errorElement: <RouteError />,
      lazy: async () => ({ Component: (await import('./pages/auth/ForgotPasswordPage')).ForgotPasswordPage }),
    },
    {
      path: '/reset-password',
      errorElement: <RouteError />,
      lazy: async () => ({ Component: (await import('./pages/auth/ResetPasswordPage')).ResetPasswordPage }),
    },
    {
      path: '/invitation',
      errorElement: <RouteError />,
      lazy: async () => ({ Component: (await import('./pages/auth/InvitationPage')).InvitationPage }),
    },
    {
      element: <AppLayout />,
      errorElement: <RouteError />,
      children: [
        { index: true, element: <ProjectHome /> },
        { path: 'setup', lazy: async () => ({ Component: (await import('./pages/onboarding/SetupPage')).SetupPage }) },
        {
          path: 'settings',
          lazy: async () => ({ Component: (await import('./pages/settings/SettingsLayout')).SettingsLayout }),
          children: [
            { index: true, element: <Navigate to="/settings/project" replace /> },
            {
              path: 'project',
              lazy: async () => ({
                Component: (await import('./pages/settings/ProjectSettingsPage')).ProjectSettingsPage,
              }),
            },
            {
              path: 'team',
              lazy: async () => ({ Component: (await import('./pages/settings/TeamPage')).TeamPage }),
            },
            {
              path: 'billing',
              lazy: async () => ({ Component: (await import('./pages/settings/BillingPage')).BillingPage }),
            },
            {
              path: 'security',
              lazy: async () => ({ Component: (await import('./pages/settings/SecurityPage')).SecurityPage }),
            },
          ],
        },
        { path: 'projects/new', element: <NewProjectPage /> },
        { path: 'keys', lazy: async () => ({ Component: (await import('./pages/keys/KeysPage')).KeysPage }) },
        {
          path: 'smtp',
          lazy: async () => ({ Component: (await import('./pages/smtp/SmtpRelayPage')).SmtpRelayPage }),
        },
        {
          path: 'webhooks',
          lazy: async () => ({ Component: (await import('./pages/webhooks/WebhooksPage')).WebhooksPage }),
        },
        {
          path: 'webhooks/:id',
          lazy: async () => ({ Component: (await import('./pages/webhooks/WebhookPage')).WebhookPage }),
        },
        {
          path: 'domains',
          lazy: async () => ({ Component: (await import('./pages/domains/DomainsPage')).DomainsPage }),
        },
        {
          path: 'contacts',
          lazy: async () => ({ Component: (await import('./pages/contacts/ContactsPage')).ContactsPage }),
        },
        {
          path: 'contacts/:id',
          lazy: async () => ({ Component: (await import('./pages/contacts/ContactPage')).ContactPage }),
        },
        {
          path: 'templates',
          lazy: async () => ({ Component: (await import('./pages/templates/TemplatesPage')).TemplatesPage }),
        },
        {
          path: 'templates/:id',
          lazy: async () => ({ Component: (await import('./pages/templates/TemplateEditorPage')).TemplateEditorPage }),
        },
        {
          path: 'campaigns',
          lazy: async () => ({ Component: (await import('./pages/campaigns/CampaignsPage')).CampaignsPage }),
        },
        {
          path: 'campaigns/new',
          lazy: async () => ({ Component: (await import('./pages/campaigns/CampaignFormPage')).CampaignFormPage }),
        },
        {
          path: 'campaigns/:id',
          lazy: async () => ({ Component: (await import('./pages/campaigns/CampaignPage')).CampaignPage }),
        },
        {
          path: 'campaigns/:id/edit',
          lazy: async () => ({ Component: (await import('./pages/campaigns/CampaignFormPage')).CampaignFormPage }),
        },
        {
          path: 'segments',
          lazy: async () => ({ Component: (await import('./pages/segments/SegmentsPage')).SegmentsPage }),
        },
        {
          path: 'segments/new',
          lazy: async () => ({ Component: (await import('./pages/segments/SegmentEditorPage')).SegmentEditorPage }),
        },
        {
          path: 'segments/:id',
          lazy: async () => ({ Component: (await import('./pages/segments/SegmentPage')).SegmentPage }),
        },
        {
          path: 'segments/:id/edit',
          lazy: async () => ({ Component: (await import('./pages/segments/SegmentEditorPage')).SegmentEditorPage }),
        },
        {
          path: 'workflows',
          lazy: async () => ({ Component: (await import('./pages/workflows/WorkflowsPage')).WorkflowsPage }),
        },
        {
          // The graph editor carries @xyflow/react: its own chunk, loaded only here.
          path: 'workflows/:id',
          lazy: async () => ({
            Component: (await import('./pages/workflows/WorkflowEditorPage')).WorkflowEditorPage,
          }),
        },
        {
          path: 'workflows/:id/executions',
          lazy: async () => ({ Component: (await import('./pages/workflows/ExecutionsPage')).ExecutionsPage }),
        },
        {
          path: 'workflows/:id/executions/:executionId',
          lazy: async () => ({ Component: (await import('./pages/workflows/ExecutionPage')).ExecutionPage }),
        },
        {
          path: 'mailbox',
          lazy: async () => ({ Component: (await import('./pages/mailbox/MailboxPage')).MailboxPage }),
        },
        {
          path: 'mailbox/:id',
          lazy: async () => ({ Component: (await import('./pages/mailbox/MailboxPage')).MailboxPage }),
        },
        {
          path: 'mailbox/account',
          lazy: async () => ({ Component: (await import('./pages/mailbox/MailboxPage')).AccountMailboxPage }),
        },
        {
          path: 'mailbox/account/:id',
          lazy: async () => ({ Component: (await import('./pages/mailbox/MailboxPage')).AccountMailboxPage }),
        },
        {
          path: 'contacts/import',
          lazy: async () => ({ Component: (await import('./pages/contacts/ImportPage')).ImportPage }),
        },
        {
          path: 'contacts/fields',
          lazy: async () => ({ Component: (await import('./pages/contacts/FieldsPage')).FieldsPage }),
        },
        {
          path: 'emails',
          lazy: async () => ({ Component: (await import('./pages/emails/EmailsPage')).EmailsPage }),
        },
        {
          path: 'emails/:id',
          lazy: async () => ({ Component: (await import('./pages/emails/EmailPage')).EmailPage }),
        },
        {
          path: 'activity',
          lazy: async () => ({ Component: (await import('./pages/activity/ActivityPage')).ActivityPage }),
        },
        {
          // Its own chunk with recharts, so only this page downloads the charts.
          path: 'analytics',
          lazy: async () => ({ Component: (await import('./pages/analytics/AnalyticsPage')).AnalyticsPage }),
        },
        {
          path: 'suppressions',
          lazy: async () => ({ Component: (await import('./pages/suppressions/SuppressionsPage')).SuppressionsPage }),
        },
        { path: '*', element: <Navigate to="/keys" replace /> },
      ],
    },
  ],
  { basename: '/app' },
)
