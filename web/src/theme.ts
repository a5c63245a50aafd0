import { createTheme, defaultVariantColorsResolver, parseThemeColor, type VariantColorsResolver } from '@mantine/core'

/**
 * Buttons, badges and alerts name a dark shade ('red.9') where it colours text, for 4.5:1 on white. The light scheme
 * gets that shade as named (Mantine's subtle and transparent variants would cap it at shade 6). On the dark scheme's
 * background it is under 3:1, so there text and border take the colour's shade 4, as Mantine's own outline and text
 * colours do in that scheme. light-dark() picks by the `color-scheme` Mantine sets on the page.
 */
const variantColorResolver: VariantColorsResolver = (input) => {
  const colors = defaultVariantColorsResolver(input)
  const parsed = parseThemeColor({ color: input.color ?? input.theme.primaryColor, theme: input.theme })
  const colorsText = input.variant === 'outline' || input.variant === 'subtle' || input.variant === 'transparent'
  if (!colorsText || !parsed.isThemeColor || parsed.shade === undefined || parsed.shade < 5) return colors
  const light = `var(--mantine-color-${parsed.color}-${parsed.shade})`
  const both = `light-dark(${light}, var(--mantine-color-${parsed.color}-4))`
  return { ...colors, color: both, border: colors.border.replace(light, both) }
}

// Mantine's default blue at shade 6 is under 4.5:1 on white for small text; shade 7 and up pass WCAG AA. In the
// dark scheme white on indigo 8 is 5.7:1 (on shade 5 it would be 3.7:1).
export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: { light: 7, dark: 8 },
  defaultRadius: 'sm',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  variantColorResolver,
})
