import { Button, Group } from '@mantine/core'
import { Link, Outlet, useLocation } from 'react-router'
import { PageHeader } from '../../components/states'

const sections = [
  { to: '/settings/project', label: 'Project' },
  { to: '/settings/team', label: 'Team' },
  { to: '/settings/billing', label: 'Billing' },
  { to: '/settings/security', label: 'Security' },
]

export function SettingsLayout() {
  const { pathname } = useLocation()
  return (
    <>
      <PageHeader title="Settings" />
      <Group component="nav" aria-label="Settings sections" gap="xs" mb="lg">
        {sections.map((section) => {
          const current = pathname === section.to
          return (
            <Button
              key={section.to}
              component={Link}
              to={section.to}
              size="sm"
              variant={current ? 'filled' : 'default'}
              aria-current={current ? 'page' : undefined}
            >
              {section.label}
            </Button>
          )
        })}
      </Group>
      <Outlet />
    </>
  )
}
