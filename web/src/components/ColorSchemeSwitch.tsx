import { Switch, useComputedColorScheme, useMantineColorScheme } from '@mantine/core'
import { useColorScheme } from '@mantine/hooks'

/**
 * Dark mode on or off. The dashboard follows the system's setting until this is switched; choosing what the system
 * says again goes back to following it, so a later change of the system setting shows. Mantine keeps the choice in
 * localStorage, so it holds across reloads.
 */
export function ColorSchemeSwitch() {
  const { setColorScheme } = useMantineColorScheme()
  const computed = useComputedColorScheme('light')
  const system = useColorScheme()
  return (
    <Switch
      label="Dark mode"
      size="sm"
      checked={computed === 'dark'}
      onChange={(event) => {
        const chosen = event.currentTarget.checked ? 'dark' : 'light'
        setColorScheme(chosen === system ? 'auto' : chosen)
      }}
    />
  )
}
