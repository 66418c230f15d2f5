import { readFileSync } from 'node:fs';
import { SUPABASE_SOURCES } from '../../src/provision/supabase.ts';

export type SupabaseSource = (typeof SUPABASE_SOURCES)[number];

/** A real Supabase event of each log kind (the same files the provisioning reads). */
export function sample(source: SupabaseSource): Record<string, any> {
  return JSON.parse(readFileSync(new URL(`../../src/provision/supabase-samples/${source}.json`, import.meta.url), 'utf8'));
}

export { SUPABASE_SOURCES };
