import { type MantineColorScheme, useComputedColorScheme } from '@mantine/core'

type Scheme = Exclude<MantineColorScheme, 'auto'>

/** A series' colour in each scheme: a dark shade on white, a light one on the dark background. */
export type SchemeColor = Record<Scheme, string>

const axes = {
  // Mantine's gray 3 and gray 7 on white; dark 4 and dark 1 on the dark body (tick text 7.8:1). A chart of one
  // series draws it in indigo 9 or indigo 3.
  light: { grid: '#dee2e6', tick: '#495057', bar: '#364fc7' },
  dark: { grid: '#424242', tick: '#b8b8b8', bar: '#91a7ff' },
}

// Mantine's body and border colours, so the tooltip sits on the page's own background in either scheme.
const tooltip = {
  contentStyle: {
    backgroundColor: 'var(--mantine-color-body)',
    borderColor: 'var(--mantine-color-default-border)',
  },
  labelStyle: { color: 'var(--mantine-color-text)' },
}

/**
 * Recharts has no colour schemes of its own: the grid, tick and tooltip colours for the page's scheme, and the
 * scheme to pick each series' colour by. Tick text and the legend (written in the series' colours) are 4.5:1 or more
 * against the page's background in both.
 */
export function useChartColors() {
  const scheme = useComputedColorScheme('light')
  return { scheme, ...axes[scheme], tooltip }
}
