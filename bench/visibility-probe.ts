/**
 * Visibility under load (issue 19): while wrk sends batches, one probe event at a time is sent
 * and an endpoint is polled until it returns it; the figure is the time from the probe's 2xx to
 * the first answer that holds it. Probes carry a timestamp 30 minutes ahead, which no bench event
 * has, so the endpoint's filter skips every row group without a probe (DuckDB's min/max per row
 * group) and polling costs the server little.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { httpJson } from './lib.ts';

export const PROBE_ENDPOINT = 'bench.visibility-probe';
export const probeEndpointQuery = (source: string) =>
  `select count(*) as n from \`${source}\` where timestamp > timestamp_add(current_timestamp(), interval 10 minute) and event_message = @m`;

const POLL_MS = 50;
const GIVE_UP_MS = 30_000;
const BETWEEN_PROBES_MS = 250;

export class VisibilityProbe {
  private running = true;
  private readonly samples: number[] = [];
  private failures = 0;
  private readonly done: Promise<void>;

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
    private readonly sourceToken: string,
  ) {
    this.done = this.loop();
  }

  /** Stops after the probe in flight; the lags in ms and the probes never seen (or refused). */
  async stop(): Promise<{ lags_ms: number[]; failures: number }> {
    this.running = false;
    await this.done;
    return { lags_ms: this.samples, failures: this.failures };
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const lag = await this.probe();
      if (lag === undefined) this.failures++;
      else this.samples.push(lag);
      await sleep(BETWEEN_PROBES_MS);
    }
  }

  private async probe(): Promise<number | undefined> {
    const message = `probe-${randomUUID()}`;
    const body = JSON.stringify({ event_message: message, timestamp: new Date(Date.now() + 30 * 60_000).toISOString() });
    const sent = await httpJson(`${this.url}/logs?source=${this.sourceToken}`, { method: 'POST', headers: { ...this.headers, 'content-type': 'application/json' }, body });
    const acknowledged = performance.now();
    if (sent.status >= 300) return undefined;
    while (performance.now() - acknowledged < GIVE_UP_MS) {
      const reply = await httpJson(`${this.url}/endpoints/query/${PROBE_ENDPOINT}?m=${message}`, { headers: this.headers });
      if (reply.status === 200 && (JSON.parse(reply.body) as { result: Array<{ n: number }> }).result[0]?.n === 1) return performance.now() - acknowledged;
      await sleep(POLL_MS);
    }
    return undefined;
  }
}
