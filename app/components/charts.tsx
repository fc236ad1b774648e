import type { ReactNode } from 'react'

/** A value of a chart: its label (a day, an application) and how many. */
export type ChartPoint = { label: string; value: number }

/** The height of the day chart's drawing, in its own units (its width is one unit per bar and gap). */
const HEIGHT = 100
const BAR = 8
const GAP = 2

/**
 * The figures of a chart as a table, for screen readers (the drawing is hidden from them): a caption,
 * a header row, one row a point.
 */
export function ChartTable({
  caption,
  headers,
  points,
}: {
  caption: ReactNode
  headers: [ReactNode, ReactNode]
  points: ChartPoint[]
}) {
  // The hidden box is a div around the table: a table is never narrower than its longest words, so
  // hidden itself it would still widen a phone's page.
  return (
    <div className="sr-only">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{headers[0]}</th>
            <th scope="col">{headers[1]}</th>
          </tr>
        </thead>
        <tbody>
          {points.map((point) => (
            <tr key={point.label}>
              <th scope="row">{point.label}</th>
              <td>{point.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/**
 * Vertical bars, one a point in order (the days of a month), drawn as SVG on the server: it shows
 * without JavaScript and scales to the width it is given. Its text (the scale, the first and last
 * labels) is HTML around it, so that it stays readable on a phone however narrow the drawing gets.
 */
export function ColumnChart({
  points,
  max,
  first,
  last,
}: {
  points: ChartPoint[]
  max: string
  first: string
  last: string
}) {
  const top = Math.max(1, ...points.map((point) => point.value))
  const width = points.length * (BAR + GAP) - GAP
  return (
    <div aria-hidden className="flex flex-col gap-1">
      <span className="text-xs text-muted-foreground tabular-nums">{max}</span>
      <svg
        aria-hidden
        viewBox={`0 0 ${width} ${HEIGHT}`}
        preserveAspectRatio="none"
        className="h-36 w-full border-b border-l border-border"
        focusable="false"
      >
        {points.map((point, index) => {
          const height = (point.value / top) * (HEIGHT - 2)
          return (
            <rect
              key={point.label}
              x={index * (BAR + GAP)}
              y={HEIGHT - height}
              width={BAR}
              height={height}
              rx={1}
              className="fill-primary"
            />
          )
        })}
      </svg>
      <div className="flex justify-between text-xs text-muted-foreground">
        <span>{first}</span>
        <span>{last}</span>
      </div>
    </div>
  )
}

/**
 * Horizontal bars, one a row (an application and its count), each bar an SVG as long as its share of
 * the largest: the names and numbers are text beside it, so long names wrap instead of overflowing.
 */
export function BarList({ points }: { points: ChartPoint[] }) {
  const top = Math.max(1, ...points.map((point) => point.value))
  return (
    <ul aria-hidden className="flex flex-col gap-3">
      {points.map((point) => (
        <li key={point.label} className="flex flex-col gap-1">
          <span className="flex justify-between gap-2 text-sm">
            <span className="min-w-0 break-words">{point.label}</span>
            <span className="tabular-nums text-muted-foreground">{point.value}</span>
          </span>
          <svg aria-hidden viewBox="0 0 100 4" preserveAspectRatio="none" className="h-2 w-full" focusable="false">
            <rect width={100} height={4} rx={2} className="fill-muted" />
            <rect width={(point.value / top) * 100} height={4} rx={2} className="fill-primary" />
          </svg>
        </li>
      ))}
    </ul>
  )
}
