/**
 * Deterministic Supabase-shaped events for the benchmarks.
 *
 * Two kinds, shaped after src/provision/supabase-samples/ so they land in the provisioned schema
 * without widening it (every key is one the sample already has):
 * - `cloudflare.logs.prod` (edge logs: read by logs.all and usage.api-counts), and
 * - `deno-relay-logs` (function edge logs: read by functions.invocation-stats).
 * Projects follow a zipf-like law (the top project takes about a quarter of the traffic); each
 * project has its own functions; paths, methods, status codes, execution times, request ids, user
 * agents and the optional parts of the request vary. Every event is 300–1,500 bytes of JSON.
 * Same seed, same events.
 */

/** Largest event the generator makes, as compact JSON. */
export const MAX_EVENT_BYTES = 1500;

export type EventKind = 'edge' | 'relay';
export const SOURCE_OF: Record<EventKind, string> = { edge: 'cloudflare.logs.prod', relay: 'deno-relay-logs' };

/** sfc32: small, fast and good enough for test data. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed >>> 0;
    for (let i = 0; i < 15; i++) this.next();
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.a >>>= 0;
    this.b >>>= 0;
    this.c >>>= 0;
    this.d >>>= 0;
    let t = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    t = (t + this.d) | 0;
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  hex(length: number): string {
    let out = '';
    while (out.length < length) out += ((this.next() * 0x100000000) >>> 0).toString(16).padStart(8, '0');
    return out.slice(0, length);
  }
  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[this.int(4)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** Cumulative weights → an index. */
class Weighted<T> {
  private readonly cumulative: number[] = [];
  constructor(
    readonly items: readonly T[],
    weights: readonly number[],
  ) {
    let sum = 0;
    for (const weight of weights) this.cumulative.push((sum += weight));
    for (let i = 0; i < this.cumulative.length; i++) this.cumulative[i]! /= sum;
  }
  draw(rng: Rng): T {
    const x = rng.next();
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return this.items[lo]!;
  }
  weightOf(index: number): number {
    return this.cumulative[index]! - (index === 0 ? 0 : this.cumulative[index - 1]!);
  }
}

const weighted = <T>(pairs: ReadonlyArray<readonly [T, number]>) =>
  new Weighted(
    pairs.map(([item]) => item),
    pairs.map(([, weight]) => weight),
  );

interface Project {
  ref: string;
  functions: Array<{ id: string; slug: string; deployment: string; version: string }>;
  tables: string[];
}

const SLUGS = ['hello-world', 'stripe-webhook', 'send-email', 'resize-image', 'openai-chat', 'auth-hook', 'cron-cleanup', 'push-notify', 'og-image', 'sync-crm', 'connect-heartbeat', 'pdf-render'];
const TABLES = ['profiles', 'todos', 'messages', 'orders', 'products', 'posts', 'comments', 'events', 'teams', 'invoices', 'rooms', 'settings'];
const BUCKETS = ['avatars', 'public', 'uploads', 'images'];
const USER_AGENTS = [
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/121.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1',
  'supabase-js/2.39.3',
  'supabase-flutter/2.3.0',
  'node-fetch/1.0 (+https://github.com/bitinn/node-fetch)',
  'Deno/1.40.2',
  'okhttp/4.12.0',
  'python-httpx/0.26.0',
];
const COLOS = [
  ['TXL', 'Berlin', 'DE', 'EU', 'Europe/Berlin'],
  ['AMS', 'Amsterdam', 'NL', 'EU', 'Europe/Amsterdam'],
  ['IAD', 'Ashburn', 'US', 'NA', 'America/New_York'],
  ['SFO', 'San Francisco', 'US', 'NA', 'America/Los_Angeles'],
  ['SIN', 'Singapore', 'SG', 'AS', 'Asia/Singapore'],
  ['GRU', 'Sao Paulo', 'BR', 'SA', 'America/Sao_Paulo'],
  ['SYD', 'Sydney', 'AU', 'OC', 'Australia/Sydney'],
  ['BOM', 'Mumbai', 'IN', 'AS', 'Asia/Kolkata'],
] as const;
const REGIONS = ['aws-us-east-1', 'aws-eu-central-1', 'aws-ap-southeast-1', 'aws-us-west-1', 'aws-sa-east-1'];
const METHODS = weighted([
  ['GET', 70],
  ['POST', 18],
  ['PATCH', 5],
  ['DELETE', 2],
  ['OPTIONS', 5],
] as const);
const STATUS = weighted([
  [200, 80],
  [201, 5],
  [204, 3],
  [304, 2],
  [400, 2],
  [401, 2],
  [404, 3],
  [429, 0.5],
  [500, 1.5],
  [502, 0.5],
  [503, 0.5],
] as const);
const EDGE_PATHS = weighted([
  ['rest', 55],
  ['auth', 15],
  ['storage', 12],
  ['realtime', 6],
  ['functions', 8],
  ['graphql', 4],
] as const);

export interface GeneratorOptions {
  seed: number;
  projects?: number;
  /** Timestamps run from `fromMs` to `toMs`; in order when `ordered`, else uniform at random. */
  fromMs: number;
  toMs: number;
}

/** Latin-alphabet project refs like Supabase's, 20 characters. */
function projectRef(rng: Rng): string {
  let ref = '';
  for (let i = 0; i < 20; i++) ref += String.fromCharCode(97 + rng.int(26));
  return ref;
}

export class EventGenerator {
  readonly projects: Project[];
  private readonly projectDraw: Weighted<Project>;
  private readonly rng: Rng;

  constructor(private readonly options: GeneratorOptions) {
    // Projects come from a fixed seed so every generator of a run shares them; the events vary with `seed`.
    const setup = new Rng(0x5eed);
    const count = options.projects ?? 50;
    this.projects = Array.from({ length: count }, () => {
      const ref = projectRef(setup);
      const functions = Array.from({ length: 1 + setup.int(8) }, (_, i) => {
        const slug = i === 0 ? SLUGS[0]! : `${setup.pick(SLUGS)}-${i}`;
        const id = setup.uuid();
        const version = String(1 + setup.int(400));
        return { id, slug, version, deployment: `${ref}_${id}_${version}` };
      });
      const tables = TABLES.filter(() => setup.chance(0.5));
      return { ref, functions, tables: tables.length > 0 ? tables : ['profiles'] };
    });
    // Zipf-like, s = 1.1: with 50 projects the top one takes about 24% of the events.
    this.projectDraw = new Weighted(
      this.projects,
      this.projects.map((_, i) => 1 / (i + 1) ** 1.1),
    );
    this.rng = new Rng(options.seed);
  }

  /** The busiest project and its share of the events. */
  topProject(): { ref: string; share: number; functionId: string } {
    return { ref: this.projects[0]!.ref, share: this.projectDraw.weightOf(0), functionId: this.projects[0]!.functions[0]!.id };
  }

  private timestamp(index: number, count: number): number {
    const { fromMs, toMs } = this.options;
    if (count > 0) return fromMs + ((toMs - fromMs) * (index + this.rng.next())) / count;
    return fromMs + (toMs - fromMs) * this.rng.next();
  }

  /** One event; `index` of `count` places it in time order (count 0: random time in the range). */
  event(kind: EventKind, index = 0, count = 0): Record<string, unknown> {
    return kind === 'edge' ? this.edge(this.timestamp(index, count)) : this.relay(this.timestamp(index, count));
  }

  private edge(atMs: number): Record<string, unknown> {
    const r = this.rng;
    const project = this.projectDraw.draw(r);
    const method = METHODS.draw(r);
    const status = STATUS.draw(r);
    const host = `${project.ref}.supabase.co`;
    const area = EDGE_PATHS.draw(r);
    let path: string;
    let search: string | undefined;
    switch (area) {
      case 'rest':
        path = `/rest/v1/${r.pick(project.tables)}`;
        if (r.chance(0.7)) search = `?select=*&id=eq.${r.int(100000)}${r.chance(0.3) ? `&order=created_at.desc&limit=${10 * (1 + r.int(10))}` : ''}`;
        break;
      case 'auth':
        path = r.pick(['/auth/v1/token', '/auth/v1/user', '/auth/v1/logout', '/auth/v1/otp', '/auth/v1/callback']);
        if (path === '/auth/v1/token') search = r.pick(['?grant_type=refresh_token', '?grant_type=password']);
        break;
      case 'storage':
        path = `/storage/v1/object/public/${r.pick(BUCKETS)}/${r.hex(8)}.${r.pick(['png', 'jpg', 'webp', 'pdf'])}`;
        if (r.chance(0.4)) search = `?width=${r.pick([320, 640, 1280, 1920])}&quality=${r.pick([60, 75, 85])}`;
        break;
      case 'realtime':
        path = '/realtime/v1/websocket';
        search = '?vsn=1.0.0';
        break;
      case 'functions':
        path = `/functions/v1/${r.pick(project.functions).slug}`;
        break;
      default:
        path = '/graphql/v1';
    }
    const [colo, city, country, continent, timezone] = r.pick(COLOS);
    const ip = `${1 + r.int(223)}.${r.int(256)}.${r.int(256)}.${r.int(256)}`;
    const ray = r.hex(16);
    const userAgent = r.pick(USER_AGENTS);
    const cf: Record<string, unknown> = {
      asn: 1000 + r.int(60000),
      city,
      colo,
      continent,
      country,
      httpProtocol: r.pick(['HTTP/1.1', 'HTTP/2', 'HTTP/3']),
      timezone,
      tlsVersion: 'TLSv1.3',
    };
    if (r.chance(0.25)) {
      cf.asOrganization = r.pick(['Deutsche Telekom AG', 'Comcast Cable', 'Amazon.com', 'Google LLC', 'Vodafone GmbH', 'Orange']);
      cf.clientTrustScore = r.int(100);
      cf.botManagement = { corporateProxy: false, score: 1 + r.int(99), staticResource: area === 'storage', verifiedBot: r.chance(0.02) };
    }
    if (r.chance(0.3)) cf.tlsCipher = 'AEAD-AES128-GCM-SHA256';
    const request: Record<string, unknown> = {
      cf,
      headers: {
        accept: r.pick(['application/json', '*/*', 'application/vnd.pgrst.object+json']),
        cf_connecting_ip: ip,
        cf_ipcountry: country,
        cf_ray: ray,
        host,
        user_agent: userAgent,
        ...(r.chance(0.2) ? { referer: `https://${project.ref.slice(0, 8)}-app.vercel.app/` } : {}),
      },
      host,
      method,
      path,
      protocol: 'https:',
      url: `https://${host}${path}${search ?? ''}`,
    };
    if (search !== undefined) request.search = search;
    const originTime = Math.round(5 + Math.exp(2.5 + 1.2 * gaussian(r)));
    const response = {
      headers: {
        cf_cache_status: r.pick(['DYNAMIC', 'DYNAMIC', 'HIT', 'MISS', 'BYPASS']),
        cf_ray: `${ray}-${colo}`,
        content_length: String(r.int(200000)),
        content_type: status === 204 ? 'text/plain' : 'application/json',
        sb_gateway_version: '1',
      },
      origin_time: originTime,
      status_code: status,
    };
    const event = {
      id: r.uuid(),
      timestamp: new Date(atMs).toISOString(),
      event_message: `${method} | ${status} | ${ip} | ${ray} | https://${host}${path} | ${userAgent}`,
      project: project.ref,
      metadata: { logflare_worker: { worker_id: r.hex(6).toUpperCase() }, request, response },
    };
    // Keep within MAX_EVENT_BYTES: long user agents and paths lose the optional Cloudflare details.
    if (JSON.stringify(event).length > MAX_EVENT_BYTES) {
      for (const key of ['botManagement', 'asOrganization', 'clientTrustScore', 'tlsCipher', 'timezone']) delete cf[key];
      delete (request.headers as Record<string, unknown>).referer;
    }
    return event;
  }

  private relay(atMs: number): Record<string, unknown> {
    const r = this.rng;
    const project = this.projectDraw.draw(r);
    const fn = r.pick(project.functions);
    const method = r.chance(0.15) ? 'OPTIONS' : METHODS.draw(r);
    const status = method === 'OPTIONS' ? 200 : STATUS.draw(r);
    const region = r.pick(REGIONS);
    const search = r.chance(0.3) ? `?t=${Math.floor(atMs)}` : undefined;
    const host = `${project.ref}.functions.supabase.co`;
    const url = `https://${host}/${fn.slug}${search ?? ''}`;
    // Execution times: log-normal around 40 ms, a long tail into seconds; integers like the sample.
    const execution = Math.max(1, Math.round(Math.exp(3.7 + 1.1 * gaussian(r))));
    const request: Record<string, unknown> = {
      headers: {
        accept: '*/*',
        host,
        ...(r.chance(0.6)
          ? { accept_encoding: 'gzip, deflate, br', content_length: String(method === 'GET' || method === 'OPTIONS' ? 0 : r.int(5000)), user_agent: r.pick(USER_AGENTS) }
          : {}),
      },
      host: 'subhosting-v1.deno-aws.net',
      method,
      pathname: `/${fn.slug}`,
      protocol: 'https:',
      url,
    };
    if (search !== undefined) request.search = search;
    return {
      id: r.uuid(),
      timestamp: new Date(atMs).toISOString(),
      event_message: `${method} | ${status} | ${url}`,
      metadata: {
        deployment_id: fn.deployment,
        execution_time_ms: execution,
        function_id: fn.id,
        project_ref: project.ref,
        request,
        response: {
          headers: {
            content_length: String(r.int(20000)),
            content_type: r.pick(['application/json', 'text/plain;charset=UTF-8', 'text/html; charset=utf-8']),
            date: new Date(atMs).toUTCString(),
            server: `deno/${region.replace('aws-', '')}`,
            vary: 'Accept-Encoding',
          },
          status_code: status,
        },
        version: fn.version,
      },
    };
  }
}

/** A standard normal deviate (Box–Muller). */
function gaussian(r: Rng): number {
  const u = 1 - r.next();
  const v = r.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
