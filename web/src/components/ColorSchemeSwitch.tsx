import { Box, Switch, useComputedColorScheme, useMantineColorScheme } from '@mantine/core'
import { useColorScheme } from '@mantine/hooks'

const icon = { width: 12, height: 12, viewBox: '0 0 24 24', fill: 'none', stroke: 'currentColor', strokeWidth: 2.5 }

function Moon() {
  return (
    <svg {...icon} aria-hidden="true">
      <path d="M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z" />
    </svg>
  )
}

function Sun() {
  return (
    <svg {...icon} aria-hidden="true">
      <circle cx="12" cy="12" r="4" />
      <path d="M12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4" />
    </svg>
  )
}

/**
 * Dark mode on or off. The dashboard follows the system's setting until this is switched; choosing what the system
 * says again goes back to following it, so a later change of the system setting shows. Mantine keeps the choice in
 * localStorage, so it holds across reloads. A sun or a moon in the track; the words only on wide screens, where the
 * header has room for them.
 */
export function ColorSchemeSwitch() {
  const { setColorScheme } = useMantineColorScheme()
  const computed = useComputedColorScheme('light')
  const system = useColorScheme()
  return (
    <Switch
      aria-label="Dark mode"
      label={
        <Box component="span" visibleFrom="lg" style={{ whiteSpace: 'nowrap' }}>
          Dark mode
        </Box>
      }
      size="md"
      onLabel={<Moon />}
      offLabel={<Sun />}
      checked={computed === 'dark'}
      onChange={(event) => {
        const chosen = event.currentTarget.checked ? 'dark' : 'light'
        setColorScheme(chosen === system ? 'auto' : chosen)
      }}
    />
  )
}
