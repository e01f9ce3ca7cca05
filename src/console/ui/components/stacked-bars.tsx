/**
 * A small stacked bar chart drawn as inline SVG, with the same figures as a table for screen
 * readers (the drawing itself is hidden from them). Colours come from the stylesheet by series
 * position (`.series-0` …), so the CSP needs no inline style.
 */
export interface ChartSeries {
  id: string;
  label: string;
}

export interface ChartBar {
  key: string;
  /** Shown under the bar (every few bars when there are many) and in the table. */
  label: string;
  values: Map<string, number>;
}

const BAR_WIDTH = 24;
const GAP = 4;
const HEIGHT = 120;
const LABEL_SPACE = 16;

export function StackedBars({ title, series, bars, format }: { title: string; series: ChartSeries[]; bars: ChartBar[]; format: (value: number) => string }) {
  const totals = bars.map((bar) => series.reduce((sum, s) => sum + (bar.values.get(s.id) ?? 0), 0));
  const max = Math.max(0, ...totals);
  const labelEvery = Math.max(1, Math.ceil(bars.length / 8));
  const width = bars.length * (BAR_WIDTH + GAP);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <ul class="legend" aria-hidden="true">
        {series.map((s, i) => <li key={s.id}><span class={`swatch series-${i % 8}`} />{s.label}</li>)}
      </ul>
      <svg viewBox={`0 0 ${Math.max(width, 1)} ${HEIGHT + LABEL_SPACE}`} class="chart-svg" aria-hidden="true" preserveAspectRatio="xMinYMin meet">
        {bars.map((bar, b) => {
          let top = HEIGHT;
          const x = b * (BAR_WIDTH + GAP);
          return (
            <g key={bar.key}>
              {series.map((s, i) => {
                const value = bar.values.get(s.id) ?? 0;
                if (value <= 0 || max === 0) return null;
                const h = Math.max(1, (value / max) * HEIGHT);
                top -= h;
                return <rect key={s.id} class={`series-${i % 8}`} x={x} y={top} width={BAR_WIDTH} height={h}><title>{`${bar.label}: ${s.label} ${format(value)}`}</title></rect>;
              })}
              {b % labelEvery === 0 && <text x={x} y={HEIGHT + LABEL_SPACE - 3} class="chart-label">{bar.label}</text>}
            </g>
          );
        })}
      </svg>
      {/* A table is never narrower than its content, so the hiding box is a div around it. */}
      <div class="sr-only"><table>
        <caption>{title}</caption>
        <thead><tr><th scope="col">When</th>{series.map((s) => <th key={s.id} scope="col">{s.label}</th>)}<th scope="col">Total</th></tr></thead>
        <tbody>
          {bars.map((bar, b) => (
            <tr key={bar.key}>
              <th scope="row">{bar.label}</th>
              {series.map((s) => <td key={s.id}>{format(bar.values.get(s.id) ?? 0)}</td>)}
              <td>{format(totals[b]!)}</td>
            </tr>
          ))}
        </tbody>
      </table></div>
    </figure>
  );
}
