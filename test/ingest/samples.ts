/** The Supabase sample events, by source name. */
import { readFileSync, readdirSync } from 'node:fs';

// The in-repo copy of ../shared/samples/supabase (the same files the provisioning reads).
const dir = new URL('../../src/provision/supabase-samples/', import.meta.url);

export const supabaseSamples: ReadonlyMap<string, Record<string, unknown>> = new Map(
  readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => [file.replace(/\.json$/, ''), JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as Record<string, unknown>]),
);

export function sample(name: string): Record<string, unknown> {
  const event = supabaseSamples.get(name);
  if (!event) throw new Error(`no sample ${name}`);
  return structuredClone(event);
}
