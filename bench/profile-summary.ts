/**
 * Summarise a V8 .cpuprofile (from `node --cpu-prof`): self time per function and per area
 * (a src/ folder, a node_modules package, node internals, GC, idle).
 * CLI: node --import tsx bench/profile-summary.ts <file.cpuprofile> [top=25]
 */
import { readFile } from 'node:fs/promises';

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  file?: string;
  /** Wall time covered by the profile, ms. */
  total_ms: number;
  /** Time the main thread was busy (not idle), ms. */
  busy_ms: number;
  functions: Array<{ function: string; where: string; self_ms: number; busy_share: number }>;
  areas: Array<{ area: string; self_ms: number; busy_share: number }>;
  text: string;
}

function area(url: string, functionName: string): string {
  if (functionName === '(idle)' || functionName === '(program)' || functionName === '(garbage collector)') return functionName;
  if (!url) return '(native / builtin)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  const source = /\/(src|build|bench|test)\/(.+)$/.exec(url);
  if (source) {
    const parts = source[2]!.split('/');
    const folder = source[1] === 'build' ? 'src' : source[1]; // build/ is src/ compiled
    return `${folder}/${parts.length > 1 ? `${parts[0]}/` : parts[0]}`;
  }
  if (url.startsWith('node:')) return url.split('/')[0]!.replace(/^node:internal.*/, 'node:internal');
  return url;
}

export async function summarizeProfile(path: string, top = 25): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfByFunction = new Map<string, { function: string; where: string; self: number; area: string }>();
  const selfByArea = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]!);
    // A sample's time is the gap to the next one.
    const delta = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    if (!node || delta <= 0) continue;
    total += delta;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName || '(anonymous)';
    const where = url ? `${url.replace(/^file:\/\/.*?\/(node_modules|src|bench|test)\//, '$1/')}:${lineNumber + 1}` : '';
    const key = `${name}|${where}`;
    const entry = selfByFunction.get(key) ?? { function: name, where, self: 0, area: area(url, functionName) };
    entry.self += delta;
    selfByFunction.set(key, entry);
    selfByArea.set(entry.area, (selfByArea.get(entry.area) ?? 0) + delta);
  }
  const idle = selfByArea.get('(idle)') ?? 0;
  const busy = total - idle;
  const share = (ms: number) => (busy > 0 ? ms / busy : 0);
  const functions = [...selfByFunction.values()]
    .filter((entry) => entry.function !== '(idle)')
    .sort((a, b) => b.self - a.self)
    .slice(0, top)
    .map((entry) => ({ function: entry.function, where: entry.where, self_ms: Math.round(entry.self), busy_share: Math.round(share(entry.self) * 1000) / 1000 }));
  const areas = [...selfByArea.entries()]
    .filter(([name]) => name !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => ({ area: name, self_ms: Math.round(ms), busy_share: Math.round(share(ms) * 1000) / 1000 }));
  const lines = [
    `profile ${Math.round(total)} ms, main thread busy ${Math.round(busy)} ms (${((busy / Math.max(total, 1)) * 100).toFixed(0)}%)`,
    'by area (self time, share of busy):',
    ...areas.slice(0, 15).map((a) => `  ${(a.busy_share * 100).toFixed(1).padStart(5)}%  ${String(a.self_ms).padStart(7)} ms  ${a.area}`),
    'top functions (self time):',
    ...functions.map((f) => `  ${(f.busy_share * 100).toFixed(1).padStart(5)}%  ${String(f.self_ms).padStart(7)} ms  ${f.function}  ${f.where}`),
  ];
  return { total_ms: Math.round(total), busy_ms: Math.round(busy), functions, areas, text: lines.join('\n') };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node --import tsx bench/profile-summary.ts <file.cpuprofile> [top]');
    process.exit(2);
  }
  console.log((await summarizeProfile(file, Number(process.argv[3] ?? 25))).text);
}
