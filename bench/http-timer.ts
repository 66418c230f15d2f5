/**
 * The endpoint client of the benchmarks, in its own small process (forked by run.ts): timed in
 * the suite's own process, requests also timed that process's large heap and its DuckDB, which
 * put a few milliseconds into the cached p99. Each message asks for `runs` sequential GETs over
 * keep-alive and is answered with the times (ms) and the rows of the last reply.
 */
import { Agent, request } from 'node:http';

interface Ask {
  url: string;
  runs: number;
  headers: Record<string, string>;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** Reads the reply to its end; keeps the body only when asked. */
function get(url: string, headers: Record<string, string>, keep: boolean): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => keep && chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function time({ url, runs, headers }: Ask): Promise<{ samples: number[]; rows: number; error?: string }> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const last = i === runs - 1;
    const t0 = performance.now();
    const reply = await get(url, headers, last);
    samples.push(performance.now() - t0);
    if (reply.status !== 200) return { samples, rows: 0, error: `${url}: ${reply.status}${last ? ` ${reply.body.slice(0, 300)}` : ''}` };
    if (last) return { samples, rows: (JSON.parse(reply.body) as { result: unknown[] }).result.length };
  }
  return { samples, rows: 0 };
}

process.on('message', (ask: Ask) => {
  time(ask).then(
    (answer) => process.send!(answer),
    (error: unknown) => process.send!({ samples: [], rows: 0, error: String(error) }),
  );
});
process.on('disconnect', () => {
  agent.destroy();
  process.exit(0);
});
