import {
  AppShell,
  Burger,
  Button,
  Group,
  NavLink,
  ScrollArea,
  Select,
  Stack,
  Text,
  Title,
  useMantineTheme,
  VisuallyHidden,
} from '@mantine/core'
import { useDisclosure, useMediaQuery } from '@mantine/hooks'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useSyncExternalStore } from 'react'
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router'
import { logOut } from '../api/auth'
import { configQuery } from '../api/config'
import { ProjectProvider } from '../api/project-context'
import { projectsQuery } from '../api/projects'
import { meQuery, rememberedProjectId, rememberProjectId, subscribeProjectId } from '../api/session'
import type { Project, User } from '../api/types'
import { VerifyEmailGate } from '../pages/auth/VerifyEmailGate'
import { CaptureModeBanner } from './CaptureModeBanner'
import { ColorSchemeSwitch } from './ColorSchemeSwitch'
import { Loading, QueryState } from './states'
import { useFocusAfterNavigation } from './use-focus-after-navigation'

const sections = [
  { to: '/setup', label: 'Get started' },
  { to: '/keys', label: 'API keys' },
  { to: '/smtp', label: 'SMTP relay' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/domains', label: 'Domains' },
  { to: '/contacts', label: 'Contacts' },
  { to: '/templates', label: 'Templates' },
  { to: '/campaigns', label: 'Campaigns' },
  { to: '/segments', label: 'Segments' },
  { to: '/workflows', label: 'Workflows' },
  { to: '/mailbox', label: 'Mailbox' },
  { to: '/emails', label: 'Emails' },
  { to: '/activity', label: 'Activity' },
  { to: '/analytics', label: 'Analytics' },
  { to: '/suppressions', label: 'Suppressions' },
  { to: '/settings', label: 'Settings' },
]

/** Below this width the navigation (and the project and account controls) fold into the header's menu. */
const menuBreakpoint = 'sm'

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
  const [menuOpen, { toggle: toggleMenu, close: closeMenu }] = useDisclosure(false)
  const theme = useMantineTheme()
  const wide = useMediaQuery(`(min-width: ${theme.breakpoints[menuBreakpoint]})`, true, {
    getInitialValueInEffect: false,
  })
  const creating = location.pathname === '/projects/new'
  useFocusAfterNavigation('main')
  // Project routes refuse an unverified user on such a server; say why once instead of an error on every page. Their
  // own account emails stay open: with the capture transport the verification email is there.
  const accountMail = location.pathname.startsWith('/mailbox/account')
  const mustVerify = config.data?.emailVerificationRequired === true && !user.emailVerified && !creating && !accountMail

  const list = projects.data ?? []
  const project = list.find((p) => p.id === chosen) ?? list[0]

  if (projects.isSuccess && !project && !creating) return <Navigate to="/projects/new" replace />

  const select = (id: string) => {
    rememberProjectId(id)
    closeMenu()
  }
  const logout = async () => {
    await logOut()
    rememberProjectId(undefined)
    queryClient.clear()
    navigate('/login', { replace: true })
  }
  const account = { projects: list, project, email, select, logout, onNavigate: closeMenu }

  return (
    <AppShell
      header={{ height: 60 }}
      navbar={{ width: 220, breakpoint: menuBreakpoint, collapsed: { mobile: !menuOpen } }}
      padding={{ base: 'sm', [menuBreakpoint]: 'lg' }}
    >
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <AppShell.Header px="md">
        <Group h="100%" justify="space-between" wrap="nowrap">
          <Group gap="lg" wrap="nowrap">
            <Burger
              opened={menuOpen}
              onClick={toggleMenu}
              hiddenFrom={menuBreakpoint}
              size="sm"
              aria-label="Menu"
              aria-expanded={menuOpen}
              aria-controls="main-navigation"
            />
            <Title order={2} size="h4">
              Mailroom
            </Title>
            <ProjectControls {...account} visibleFrom={menuBreakpoint} />
          </Group>
          <AccountControls {...account} visibleFrom={menuBreakpoint} />
        </Group>
      </AppShell.Header>
      <AppShell.Navbar
        p="xs"
        component="nav"
        aria-label="Main"
        id="main-navigation"
        // Off screen on a phone until the menu opens: out of the tab order and the accessibility tree too.
        inert={!wide && !menuOpen}
      >
        <AppShell.Section grow component={ScrollArea}>
          <Stack gap="xs" hiddenFrom={menuBreakpoint} mb="sm">
            <ProjectControls {...account} />
            <AccountControls {...account} />
          </Stack>
          {sections.map((section) => (
            <NavLink
              variant="filled"
              key={section.to}
              component={Link}
              to={section.to}
              label={section.label}
              onClick={closeMenu}
              active={location.pathname === section.to || location.pathname.startsWith(`${section.to}/`)}
              aria-current={location.pathname.startsWith(section.to) ? 'page' : undefined}
            />
          ))}
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main id="main" tabIndex={-1}>
        <CaptureModeBanner />
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

type AccountProps = {
  projects: Project[]
  project: Project | undefined
  email: string
  select(id: string): void
  logout(): void
  onNavigate(): void
  visibleFrom?: typeof menuBreakpoint
}

/** The project switch and "New project": in the header on a wide screen, at the top of the menu on a phone. */
function ProjectControls({ projects, project, select, onNavigate, visibleFrom }: AccountProps) {
  return (
    <Group gap="lg" wrap="nowrap" visibleFrom={visibleFrom} justify="space-between">
      {project && (
        <Select
          aria-label="Project"
          data={projects.map((p) => ({ value: p.id, label: p.name }))}
          value={project.id}
          onChange={(id) => id && select(id)}
          allowDeselect={false}
          w={visibleFrom ? 220 : undefined}
          flex={visibleFrom ? undefined : 1}
          size="sm"
        />
      )}
      <Button component={Link} to="/projects/new" variant="subtle" size="sm" onClick={onNavigate}>
        New project
      </Button>
    </Group>
  )
}

/** Who is signed in, and Log out. */
function AccountControls({ email, logout, visibleFrom }: AccountProps) {
  return (
    <Group gap="sm" wrap="nowrap" visibleFrom={visibleFrom} justify="space-between">
      <Text size="sm" c="dimmed" truncate="end" title={email} miw={0}>
        <VisuallyHidden>Signed in as </VisuallyHidden>
        {email}
      </Text>
      <ColorSchemeSwitch />
      <Button variant="default" size="sm" onClick={logout} flex="none">
        Log out
      </Button>
    </Group>
  )
}
