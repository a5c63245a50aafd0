import { createTheme } from '@mantine/core'

// Mantine's default blue at shade 6 is under 4.5:1 on white for small text; shade 7 and up pass WCAG AA.
export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: { light: 7, dark: 5 },
  defaultRadius: 'sm',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
})
