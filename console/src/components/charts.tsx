import { useEffect, useMemo, useRef } from 'preact/hooks';
import uPlot, { type AlignedData, type Options } from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { withGaps } from '../chart-data.ts';

const WHOLE_NUMBER_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7, 1e8, 1e9];
const PALETTE = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2'];

/** A uPlot chart that follows its container's width and is rebuilt when its data changes. */
function Plot({ options, data, testId, xMax }: { options: Omit<Options, 'width'>; data: AlignedData; testId: string; xMax?: number }) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const chart = new uPlot({ ...options, width: Math.max(element.clientWidth, 200) }, data, element);
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, 200), height: options.height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [options, data]);
  return <div class="chart" ref={container} data-testid={testId} data-x-max={xMax} />;
}

/** Events per bucket as bars; a click on a bar narrows the range to it. */
export function VolumeChart({ buckets, bucketSeconds, onSelect }: { buckets: Array<{ time: number; events: number }>; bucketSeconds: number; onSelect?: (fromSeconds: number, toSeconds: number) => void }) {
  // The chart is rebuilt only for new data, not for every render of the page around it.
  const selected = useRef(onSelect);
  selected.current = onSelect;
  const data = useMemo<AlignedData>(() => [buckets.map((bucket) => bucket.time / 1e6), buckets.map((bucket) => bucket.events)], [buckets]);
  // Each bar spans its bucket to the right of its start: the axis ends where the last bucket does.
  const xMin = buckets.length ? buckets[0]!.time / 1e6 : 0;
  const xMax = buckets.length ? buckets.at(-1)!.time / 1e6 + bucketSeconds : 1;
  const options = useMemo<Omit<Options, 'width'>>(() => ({
    height: 140,
    legend: { show: false },
    cursor: { drag: { x: true, y: false, setScale: false } },
    scales: { x: { time: true, range: () => [xMin, xMax] }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
    // Counts are whole numbers: no ticks at 0.5.
    axes: [{ stroke: '#64748b', grid: { stroke: '#eef2f7' } }, { stroke: '#64748b', grid: { stroke: '#eef2f7' }, size: 48, incrs: WHOLE_NUMBER_STEPS }],
    series: [
      {},
      {
        label: 'events',
        stroke: PALETTE[0],
        fill: 'rgba(37, 99, 235, 0.35)',
        paths: uPlot.paths.bars!({ size: [0.9, 64], align: 1 }),
        points: { show: false },
      },
    ],
    hooks: {
      setSelect: [
        (chart) => {
          if (!selected.current || chart.select.width < 2) return;
          const from = chart.posToVal(chart.select.left, 'x');
          const to = chart.posToVal(chart.select.left + chart.select.width, 'x') + bucketSeconds;
          selected.current(from, to);
        },
      ],
    },
  }), [bucketSeconds, xMin, xMax]);
  return <Plot options={options} data={data} testId="volume-chart" xMax={xMax} />;
}

/** Numeric columns over a time column, one line each. */
export function TimeSeriesChart({ times, series }: { times: number[]; series: Array<{ name: string; values: Array<number | null> }> }) {
  const { data, options } = useMemo(() => {
    const order = times.map((_, index) => index).sort((a, b) => times[a]! - times[b]!);
    const gapped = withGaps(
      order.map((index) => times[index]!),
      series.map((line) => order.map((index) => line.values[index] ?? null)),
    );
    const data: AlignedData = [gapped.times, ...gapped.series];
    const options: Omit<Options, 'width'> = {
      height: 220,
      scales: { x: { time: true } },
      axes: [{ stroke: '#64748b', grid: { stroke: '#eef2f7' } }, { stroke: '#64748b', grid: { stroke: '#eef2f7' }, size: 56 }],
      // spanGaps off: a null (an empty bucket) breaks the line.
      series: [{}, ...series.map((line, index) => ({ label: line.name, stroke: PALETTE[index % PALETTE.length], width: 2, spanGaps: false, points: { show: order.length < 60 } }))],
    };
    return { data, options };
  }, [times, series]);
  return <Plot options={options} data={data} testId="result-chart" />;
}
