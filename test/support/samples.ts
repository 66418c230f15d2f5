import { readdirSync, readFileSync } from 'node:fs';
import { SUPABASE_SOURCES } from '../../src/provision/supabase.ts';

// The in-repo copy of ../shared/samples/supabase: the same files the provisioning reads.
const dir = new URL('../../src/provision/supabase-samples/', import.meta.url);

/** A real Supabase event of each log kind, by source name. */
export const supabaseSamples: ReadonlyMap<string, Record<string, unknown>> = new Map(
  readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => [file.replace(/\.json$/, ''), JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as Record<string, unknown>]),
);

/** A copy of one source's sample event, free to change. */
export function sample(source: string): Record<string, any> {
  const event = supabaseSamples.get(source);
  if (!event) throw new Error(`no sample ${source}`);
  return structuredClone(event);
}

export { SUPABASE_SOURCES };
