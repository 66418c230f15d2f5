/**
 * docs/functions.md, generated from the catalog and each engine's renderings, so the coverage
 * table cannot drift from the code: `npm run docs:functions` writes it, and a test fails when the
 * file differs from what this prints.
 */

import type { FunctionRenderings } from '../emitters.ts';
import type { Family, FunctionEntry } from './entry.ts';
import { BIGQUERY_FUNCTIONS, OUT_OF_SCOPE_FAMILIES, SPECIAL_FORMS, type BigQueryFunction } from './index.ts';
import { describePattern, describeSignature } from './signature.ts';

export interface EngineRenderings {
  name: string;
  functions: FunctionRenderings;
}

const FAMILY_TITLES: Record<Exclude<Family, 'internal'>, string> = {
  aggregate: 'Aggregate',
  approximate_aggregate: 'Approximate aggregate',
  array: 'Array',
  bit: 'Bit',
  conditional: 'Conditional',
  conversion: 'Conversion',
  date: 'Date',
  datetime: 'Datetime',
  debugging: 'Debugging',
  hash: 'Hash',
  interval: 'Interval',
  json: 'JSON',
  mathematical: 'Mathematical',
  navigation: 'Navigation',
  net: 'Net',
  numbering: 'Numbering',
  search: 'Search',
  statistical: 'Statistical aggregate',
  string: 'String',
  time: 'Time',
  time_series: 'Time series',
  timestamp: 'Timestamp',
  utility: 'Utility',
};

export function renderFunctionDocs(engines: readonly EngineRenderings[]): string {
  const lines = [
    '# BigQuery functions in Sawmill',
    '',
    '<!-- Generated from src/sql/functions/ and each engine\'s functions/ folder by `npm run docs:functions`; do not edit. -->',
    '',
    'Every BigQuery function Sawmill knows, by family of BigQuery\'s function reference, with the',
    'signatures the analyzer accepts (a call that matches none is refused when the query is saved,',
    'in BigQuery\'s words) and whether each engine runs it. An engine that cannot give BigQuery\'s',
    'answer refuses the query at save with the reason shown. `T1` arguments take any type, the same',
    'for every argument marked so; `[X]` is optional; `DATE_TIME_PART` is a date-part keyword.',
    '',
  ];
  const byFamily = new Map<Family, Array<[BigQueryFunction, FunctionEntry]>>();
  for (const [name, entry] of Object.entries(BIGQUERY_FUNCTIONS) as Array<[BigQueryFunction, FunctionEntry]>) {
    byFamily.set(entry.family, [...(byFamily.get(entry.family) ?? []), [name, entry]]);
  }
  for (const [family, title] of Object.entries(FAMILY_TITLES) as Array<[Exclude<Family, 'internal'>, string]>) {
    const entries = (byFamily.get(family) ?? []).sort(([a], [b]) => a.localeCompare(b));
    const special = SPECIAL_FORMS.filter((form) => form.family === family);
    if (entries.length === 0 && special.length === 0) continue;
    lines.push(`## ${title} functions`, '', `| function | signatures | ${engines.map((engine) => engine.name).join(' | ')} |`, `|---|---|${engines.map(() => '---|').join('')}`);
    for (const [name, entry] of entries) {
      const upper = name.toUpperCase();
      const signatures = entry.signatures.map((signature) => `\`${describeSignature(upper, signature, true)} -> ${describePattern(signature.result, true)}\``).join('<br>');
      const support = engines.map((engine) => {
        const rendering = engine.functions[name];
        return typeof rendering === 'function' ? 'yes' : `no: ${rendering.unsupported}`;
      });
      lines.push(`| ${upper}${kindNote(entry)} | ${signatures} | ${support.join(' | ')} |`);
    }
    for (const form of special) lines.push(`| ${form.name} | special syntax, lowered to ${form.lowering} | ${engines.map(() => 'yes').join(' | ')} |`);
    lines.push('');
  }
  lines.push('## Families left out', '', 'A call of one of these is refused at save with the family named:', '');
  for (const family of OUT_OF_SCOPE_FAMILIES) lines.push(`- BigQuery's ${family.family}`);
  lines.push('');
  return lines.join('\n');
}

function kindNote(entry: FunctionEntry): string {
  if (entry.kind === 'aggregate') return ' (aggregate)';
  if (entry.kind === 'window') return ' (window)';
  return '';
}
