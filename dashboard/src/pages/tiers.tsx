// Tiers, live: the collection's tier statistics a second at a time (GET /collections/{c}/tiers/history),
// polled every two seconds and drawn with uPlot: the share of reads served from DRAM, CXL and DRAM
// bytes read per second, and the server's search QPS with p50 and p99; and the promotion pool now.
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { call, NeedsKey } from '../api';
import { bytes, count, share } from '../format';
import type { CollectionView, TierHistory, TierSample } from '../types';
import { ErrorBox, Fields, Grid } from '../ui';

/** How often the page asks for the history. */
export const POLL_MS = 2000;

interface Series {
  label: string;
  stroke: string;
  values: (s: TierSample) => number | null;
}

function Chart({ title, samples, series, unit }: { title: string; samples: TierSample[]; series: Series[]; unit: (v: number) => string }) {
  const el = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  useEffect(() => {
    if (!el.current) return;
    plot.current = new uPlot(
      {
        title,
        width: 560,
        height: 180,
        series: [
          {},
          ...series.map((s) => ({ label: s.label, stroke: s.stroke, width: 2, value: (_u: uPlot, v: number | null) => (v === null ? '–' : unit(v)) })),
        ],
        axes: [{}, { values: (_u: uPlot, ticks: number[]) => ticks.map(unit), size: 96 }],
      },
      [[], ...series.map(() => [])],
      el.current,
    );
    return () => plot.current?.destroy();
  }, []);
  useEffect(() => {
    plot.current?.setData([samples.map((s) => s.at / 1000), ...series.map((x) => samples.map((s) => x.values(s)))] as uPlot.AlignedData);
  }, [samples, series]);
  return <div class="chart" ref={el} data-testid={`chart-${title}`} />;
}

const SHARE: Series[] = [{ label: 'DRAM share of reads', stroke: '#2b7a0b', values: (s) => s.dram_share }];
const BYTES: Series[] = [
  { label: 'CXL bytes/s', stroke: '#b3541e', values: (s) => s.cxl_bytes_per_s },
  { label: 'DRAM bytes/s', stroke: '#1f5fa8', values: (s) => s.dram_bytes_per_s },
];
const QPS: Series[] = [{ label: 'search requests/s', stroke: '#444', values: (s) => s.qps }];
const LATENCY: Series[] = [
  { label: 'p50 ms', stroke: '#1f5fa8', values: (s) => s.p50_ms },
  { label: 'p99 ms', stroke: '#b3541e', values: (s) => s.p99_ms },
];

export function TiersPage({ name, onNeedsKey }: { name: string; onNeedsKey: () => void }) {
  const [samples, setSamples] = useState<TierSample[]>([]);
  const [hottest, setHottest] = useState<TierHistory['hottest_lists']>([]);
  const [info, setInfo] = useState<CollectionView | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    const poll = async () => {
      try {
        const path = `/collections/${encodeURIComponent(name)}`;
        const [h, i] = await Promise.all([call<TierHistory>('GET', `${path}/tiers/history`), call<CollectionView>('GET', path)]);
        if (!live) return;
        setSamples(h.samples);
        setHottest(h.hottest_lists);
        setInfo(i);
        setError(null);
      } catch (e) {
        if (e instanceof NeedsKey) onNeedsKey();
        else if (live) setError(e instanceof Error ? e.message : String(e));
      }
    };
    void poll();
    const timer = setInterval(poll, POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [name, onNeedsKey]);
  const last = samples[samples.length - 1];
  const pool = info?.strata?.placement?.promotion_pool;
  return (
    <div>
      <h1>Tiers of {name}, live</h1>
      <ErrorBox error={error} />
      <Fields
        rows={[
          [
            'last second',
            last
              ? `${count(last.searches)} searches, ${share(last.dram_share)} of reads from DRAM, CXL ${bytes(Math.round(last.cxl_bytes_per_s))}/s`
              : 'no sample yet',
          ],
          [
            'server',
            last ? `${last.qps.toFixed(0)} search requests/s, p50 ${last.p50_ms?.toFixed(2) ?? '–'} ms, p99 ${last.p99_ms?.toFixed(2) ?? '–'} ms` : '–',
          ],
          ['promotion pool', pool ? `${pool.tenants} of ${pool.slots} slots hold CXL lists, ${pool.moves} moves since the layout` : 'none'],
          ['pool churn', last ? `${last.pool_moves} lists moved in the last second` : '–'],
        ]}
      />
      {hottest.length > 0 && (
        <>
          <h2>Hottest neighbour lists (in the promotion pool)</h2>
          <Grid head={['point', 'reads counted']} testid="hottest">
            {hottest.map((h) => (
              <tr key={String(h.point)} data-point={String(h.point)}>
                <td class="num">{String(h.point)}</td>
                <td class="num">{count(h.reads)}</td>
              </tr>
            ))}
          </Grid>
        </>
      )}
      <div class="charts">
        <Chart title="DRAM share" samples={samples} series={SHARE} unit={(v) => share(v)} />
        <Chart title="Bytes read" samples={samples} series={BYTES} unit={(v) => `${bytes(Math.round(v))}/s`} />
        <Chart title="QPS" samples={samples} series={QPS} unit={(v) => v.toFixed(0)} />
        <Chart title="Latency" samples={samples} series={LATENCY} unit={(v) => `${v.toFixed(1)} ms`} />
      </div>
    </div>
  );
}
