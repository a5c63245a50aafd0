import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import { useChartColors } from '../../components/chart-colors'

const tickLengthChars = 20

/** A name cut to fit the axis; the tooltip and the table beside the chart show it in full. */
function shorten(name: string): string {
  return name.length > tickLengthChars ? `${name.slice(0, tickLengthChars - 1)}…` : name
}

/** A horizontal bar per name, longest first, for the top-N lists; the panels show the same numbers as text. */
export function RankingChart({ rows, label }: { rows: { name: string; value: number }[]; label: string }) {
  const colors = useChartColors()
  return (
    <div style={{ height: Math.max(120, rows.length * 32 + 40) }} role="img" aria-label={label}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={rows} layout="vertical" margin={{ top: 4, right: 16, bottom: 4, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke={colors.grid} horizontal={false} />
          <XAxis type="number" allowDecimals={false} tick={{ fontSize: 12, fill: colors.tick }} />
          <YAxis
            type="category"
            dataKey="name"
            width={140}
            tick={{ fontSize: 12, fill: colors.tick }}
            tickFormatter={shorten}
          />
          <Tooltip {...colors.tooltip} />
          <Bar dataKey="value" name={label} fill={colors.bar} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  )
}
