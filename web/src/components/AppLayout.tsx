import { AppShell, Button, Group, NavLink, Select, Text, Title, VisuallyHidden } from '@mantine/core'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useSyncExternalStore } from 'react'
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router'
import { api } from '../api/client'
import { configQuery } from '../api/config'
import { ProjectProvider } from '../api/project-context'
import { meQuery, projectsQuery, rememberedProjectId, rememberProjectId, subscribeProjectId } from '../api/session'
import type { User } from '../api/types'
import { VerifyEmailGate } from '../pages/auth/VerifyEmailGate'
import { Loading, QueryState } from './states'

const sections = [
  { to: '/setup', label: 'Get started' },
  { to: '/keys', label: 'API keys' },
  { to: '/domains', label: 'Domains' },
  { to: '/contacts', label: 'Contacts' },
  { to: '/templates', label: 'Templates' },
  { to: '/campaigns', label: 'Campaigns' },
  { to: '/segments', label: 'Segments' },
  { to: '/workflows', label: 'Workflows' },
  { to: '/mailbox', label: 'Mailbox' },
  { to: '/activity', label: 'Activity' },
  { to: '/analytics', label: 'Analytics' },
  { to: '/suppressions', label: 'Suppressions' },
  { to: '/settings', label: 'Settings' },
]

/** The signed-in frame: a session is required, and every page below it works on one chosen project. */
export function AppLayout() {
  const me = useQuery(meQuery)
  const location = useLocation()
  if (me.isPending) return <Loading label="Checking your session" />
  if (me.data === null) {
    const next = location.pathname === '/' ? '' : `?next=${encodeURIComponent(location.pathname + location.search)}`
    return <Navigate to={`/login${next}`} replace />
  }
  return <QueryState query={me}>{(user) => user && <ProjectFrame user={user} />}</QueryState>
}

function ProjectFrame({ user }: { user: User }) {
  const { email } = user
  const projects = useQuery(projectsQuery)
  const config = useQuery(configQuery)
  const chosen = useSyncExternalStore(subscribeProjectId, rememberedProjectId)
  const location = useLocation()
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const creating = location.pathname === '/projects/new'
  // Project routes refuse an unverified user on such a server; say why once instead of an error on every page.
  const mustVerify = config.data?.emailVerificationRequired === true && !user.emailVerified && !creating

  const list = projects.data ?? []
  const project = list.find((p) => p.id === chosen) ?? list[0]

  if (projects.isSuccess && !project && !creating) return <Navigate to="/projects/new" replace />

  const select = (id: string) => rememberProjectId(id)
  const logout = async () => {
    await api('/auth/logout', { method: 'POST' })
    rememberProjectId(undefined)
    queryClient.clear()
    navigate('/login', { replace: true })
  }

  return (
    <AppShell header={{ height: 60 }} navbar={{ width: 220, breakpoint: 0 }} padding="lg">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <AppShell.Header px="md">
        <Group h="100%" justify="space-between" wrap="nowrap">
          <Group gap="lg" wrap="nowrap">
            <Title order={2} size="h4">
              Mailroom
            </Title>
            {project && (
              <Select
                aria-label="Project"
                data={list.map((p) => ({ value: p.id, label: p.name }))}
                value={project.id}
                onChange={(id) => id && select(id)}
                allowDeselect={false}
                w={220}
                size="sm"
              />
            )}
            <Button component={Link} to="/projects/new" variant="subtle" size="sm">
              New project
            </Button>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <Text size="sm" c="dimmed">
              <VisuallyHidden>Signed in as </VisuallyHidden>
              {email}
            </Text>
            <Button variant="default" size="sm" onClick={logout}>
              Log out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label="Main">
        {sections.map((section) => (
          <NavLink
            variant="filled"
            key={section.to}
            component={Link}
            to={section.to}
            label={section.label}
            active={location.pathname === section.to || location.pathname.startsWith(`${section.to}/`)}
            aria-current={location.pathname.startsWith(section.to) ? 'page' : undefined}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main id="main" tabIndex={-1}>
        <QueryState query={projects} label="Loading your projects">
          {() =>
            project && mustVerify ? (
              <VerifyEmailGate email={email} />
            ) : project ? (
              <ProjectProvider value={{ project, projects: list, select }}>
                <Outlet key={project.id} />
              </ProjectProvider>
            ) : (
              <Outlet />
            )
          }
        </QueryState>
      </AppShell.Main>
    </AppShell>
  )
}
