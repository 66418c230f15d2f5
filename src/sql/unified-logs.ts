/**
 * Supabase's unified `logs` table, without storing it: every source of the owner as one relation
 * with the columns hosted Supabase's ClickHouse table has (`id`, `timestamp`, `event_message`,
 * `severity_text`, `severity_number`, `source`, `source_name`, `project`, `log_attributes`).
 *
 * Supabase keeps `log_attributes` as a `Map(String, String)` of every field of the event, keyed by
 * its dotted path without the `metadata.` root, and measured it at 93% of its row bytes: reading
 * one key costs as much as reading the whole map. Here the map is never stored. Each query that
 * reads `logs` gets its own relation, a UNION ALL of one SELECT per source that projects only the
 * keys the query names, each read from the typed column it names (`log_attributes['request.method']`
 * is `metadata.request.method`, as a string). A query reads the fields it uses and nothing else.
 *
 * Values are what ClickHouse's map gives: a string, '' where the event or its source has no such
 * key (a map answers '' for a missing key, never NULL). `log_attributes` read with no key is a
 * record of every key of every source the query spans, NULL where the event has none (a UNION ALL
 * needs one type): it reads every field, as Supabase's map does for any read.
 *
 * The column rules follow Logflare's mapping for its ClickHouse logs table (Logflare's
 * clickhouse_adaptor/mapping_defaults.ex): `project` is the first of `project`, `project_ref`,
 * `project_id`, `metadata.project`, `metadata.tenant`, `metadata.tenantId` (and, Sawmill's addition,
 * `metadata.project_ref`, where function logs carry it); `severity_text` the
 * first of `severity_text`, `severityText`, `metadata.level`, `level`,
 * `metadata.parsed.error_severity`, upper-cased, INFO when absent or not an OpenTelemetry level;
 * `log_attributes` holds every field but `id`, `event_message` and `timestamp`, with the fields of
 * `metadata` lifted to the top (a top-level field of the same name wins).
 */

import type { Column, SqlType, TableShape } from './catalog.ts';
import { findColumn } from './catalog.ts';
import type { BigQueryFunction } from './functions/index.ts';
import type { TranslateContext } from './index.ts';
import type { Position } from './ast.ts';
import type * as ir from './ir.ts';
import { conjunctsOf } from './analysis.ts';
import { invalidSql } from './parse.ts';

/** The table name a query writes. */
export const UNIFIED_LOGS_TABLE = 'logs';

/** What lowering records as the relation of `logs` until the expansion replaces it. */
export const UNIFIED_LOGS_RELATION = '\u0000unified logs';

/** Studio's name for each source a Supabase stack sends to; any other source keeps its own name. */
export const SUPABASE_SOURCE_LABELS: Readonly<Record<string, string>> = {
  'cloudflare.logs.prod': 'edge_logs',
  'postgres.logs': 'postgres_logs',
  'deno-relay-logs': 'function_edge_logs',
  'deno-subhosting-events': 'function_logs',
  'gotrue.logs.prod': 'auth_logs',
  'realtime.logs.prod': 'realtime_logs',
  'storage.logs.prod.2': 'storage_logs',
  'postgREST.logs.prod': 'postgrest_logs',
  'pgbouncer.logs.prod': 'pgbouncer_logs',
  'supavisor.logs.prod': 'supavisor_logs',
};

export const sourceLabel = (sourceName: string): string => SUPABASE_SOURCE_LABELS[sourceName] ?? sourceName;

/** The sources a unified relation spans: what the translator's context can say about each. */
export interface UnifiedLogsSources {
  /** Every source of the owner, by name. */
  names(): Iterable<string>;
  relation(name: string): string | undefined;
  shape(name: string): TableShape | undefined;
}

/**
 * The context's tables with `logs` added: the unified relation's marker, when the context can
 * list its sources' shapes and has no source of that name. With `only`, `logs` is the one table.
 */
export function unifiedLogsResolver(ctx: TranslateContext): { resolveTable(name: string): string | undefined; sources: UnifiedLogsSources } {
  const sources: UnifiedLogsSources = {
    names: () => ctx.tableNames?.() ?? [],
    relation: (name) => ctx.resolveTable(name),
    shape: (name) => ctx.tableShape?.(name),
  };
  const available = ctx.tableNames !== undefined && ctx.tableShape !== undefined;
  const isLogs = (name: string) => available && name.toLowerCase() === UNIFIED_LOGS_TABLE;
  if (ctx.unifiedLogs?.only) return { resolveTable: (name) => (isLogs(name) ? UNIFIED_LOGS_RELATION : undefined), sources };
  return { resolveTable: (name) => ctx.resolveTable(name) ?? (isLogs(name) ? UNIFIED_LOGS_RELATION : undefined), sources };
}

export interface UnifiedLogsOptions {
  /** Parameter names bounding `timestamp` in every source (both inclusive): the logs endpoints' window. */
  window?: { start: string; end: string };
  /** Refuse `SELECT *` (and `t.*`) anywhere in the query, as Supabase's logs endpoints do. */
  refuseStar?: boolean;
}

const OTEL_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'NOTICE', 'WARN', 'WARNING', 'ERROR', 'FATAL', 'CRITICAL', 'EMERGENCY', 'ALERT', 'LOG', 'PANIC'];
/** OpenTelemetry severity numbers of those levels (Logflare's table). */
const SEVERITY_NUMBERS: Record<string, number> = { TRACE: 1, DEBUG: 5, INFO: 9, LOG: 9, NOTICE: 11, WARN: 13, WARNING: 13, ERROR: 17, FATAL: 21, CRITICAL: 21, EMERGENCY: 21, ALERT: 21, PANIC: 21 };
// Logflare's paths, then metadata.project_ref, where Supabase's function logs carry the project.
const PROJECT_PATHS = ['project', 'project_ref', 'project_id', 'metadata.project', 'metadata.tenant', 'metadata.tenantId', 'metadata.project_ref'];
const SEVERITY_PATHS = ['severity_text', 'severityText', 'metadata.level', 'level', 'metadata.parsed.error_severity'];

/** Columns of the unified table besides `log_attributes`, with their types. */
const COLUMNS = ['id', 'timestamp', 'event_message', 'severity_text', 'severity_number', 'source', 'source_name', 'project'] as const;
type UnifiedColumn = (typeof COLUMNS)[number];
const COLUMN_TYPES: Record<UnifiedColumn, ir.ScalarTypeName> = {
  id: 'STRING',
  timestamp: 'TIMESTAMP',
  event_message: 'STRING',
  severity_text: 'STRING',
  severity_number: 'INT64',
  source: 'STRING',
  source_name: 'STRING',
  project: 'STRING',
};
const MAP_COLUMN = 'log_attributes';
/** Fields of an event that are columns of their own, not attributes. */
const FIXED_FIELDS = new Set(['id', 'timestamp', 'event_message']);
const ROW = 't';

const str = (value: string): ir.Expr => ({ kind: 'string', value });
const ref = (...path: string[]): ir.Expr => ({ kind: 'ref', path });
const call = (fn: BigQueryFunction, ...args: ir.Expr[]): ir.Expr => ({ kind: 'call', fn, args, distinct: false });
const asString = (expr: ir.Expr): ir.Expr => ({ kind: 'cast', expr, type: 'STRING', safe: false });

/** The name a key's column has inside the unified relation (never one a query could write by accident). */
const attributeColumn = (index: number) => `__log_attribute_${index}`;

/**
 * `log_attributes['key']` as lowered: ClickHouse SQL's map subscript, or BigQuery's subscript, by
 * a string literal of a name ending in `log_attributes`. Returns the key and the name it reads.
 */
function attributeRead(node: { kind: string }): { key: string; path: string[] } | undefined {
  const read = node as { kind: string; base?: ir.Expr; index?: ir.Expr; key?: ir.Expr };
  const key = read.kind === 'subscript' ? read.index : read.kind === 'map_subscript' ? read.key : undefined;
  if (key?.kind !== 'string' || read.base?.kind !== 'ref') return undefined;
  return read.base.path.at(-1)?.toLowerCase() === MAP_COLUMN ? { key: key.value, path: read.base.path } : undefined;
}

/** A subscript of a name ending in `log_attributes`, whatever its key. */
function isMapRead(node: { kind: string }): boolean {
  const read = node as { kind: string; base?: ir.Expr };
  return (read.kind === 'subscript' || read.kind === 'map_subscript') && read.base?.kind === 'ref' && read.base.path.at(-1)?.toLowerCase() === MAP_COLUMN;
}

const atOf = (node: { kind: string }) => ((node as { base?: ir.Expr }).base as { at?: Position } | undefined)?.at;

/** Turn `node` into `replacement` in place (the tree holds it by reference). */
function replaceNode(node: object, replacement: object): void {
  for (const name of Object.keys(node)) delete (node as Record<string, unknown>)[name];
  Object.assign(node, replacement);
}

type SourceRelation = Extract<ir.Relation, { kind: 'source' }>;

const isUnifiedLogs = (relation: ir.Relation): relation is SourceRelation => relation.kind === 'source' && relation.relation === UNIFIED_LOGS_RELATION;

interface Found {
  relations: SourceRelation[];
  /** The sources a relation's SELECT keeps by its WHERE (`source = 'edge_logs'`), by relation. */
  kept: Map<SourceRelation, ReadonlySet<string>>;
  /** Keys in order of first use → their column names. */
  keys: Map<string, string>;
  /** Lower-case names written in refs (which unified columns a query may read). */
  names: Set<string>;
  star: boolean;
  /** Star items of SELECTs that read `logs` directly (they must not show the key columns). */
  starsOverLogs: Array<Extract<ir.SelectItem, { kind: 'star' }>>;
  /** `log_attributes` read without a key somewhere. */
  wholeMap: boolean;
}

/**
 * Visit every node of the query (expressions, relations, nested queries) once. The IR is plain
 * data, so a walk over its objects reaches new node kinds too.
 */
function walk(node: unknown, visit: (node: { kind: string }) => boolean | void): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, visit);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  if ('kind' in node && typeof node.kind === 'string' && visit(node as { kind: string }) === false) return;
  for (const value of Object.values(node)) walk(value, visit);
}

/**
 * Replace every read of the unified `logs` table in `query` (in place) by a relation over the
 * sources. Returns the parameters the relation adds (the window's), or [] when the query does not
 * read `logs`.
 */
export function expandUnifiedLogs(query: ir.Query, sources: UnifiedLogsSources, options: UnifiedLogsOptions = {}): string[] {
  // The whole map may only be selected as it is: a function of it (has, mapKeys…) is not supported.
  const wholeMapItems = new Set<ir.Expr>();
  const found: Found = { relations: [], kept: new Map(), keys: new Map(), names: new Set(), star: false, starsOverLogs: [], wholeMap: false };
  walk(query, (node) => {
    const expr = node as ir.Expr;
    const read = attributeRead(node);
    if (!read && isMapRead(node)) throw invalidSql(`log_attributes takes a string literal key, as in log_attributes['request.method']`, atOf(node));
    if (read) {
      let column = found.keys.get(read.key);
      if (!column) found.keys.set(read.key, (column = attributeColumn(found.keys.size)));
      const path = [...read.path.slice(0, -1), column];
      for (const name of path) found.names.add(name.toLowerCase());
      // The subscript becomes a read of the key's column, through the same qualifier.
      replaceNode(node, { kind: 'ref', path });
      return false;
    }
    if (expr.kind === 'ref') {
      for (const name of expr.path) found.names.add(name.toLowerCase());
      if (expr.path.at(-1)?.toLowerCase() === MAP_COLUMN) {
        if (!wholeMapItems.has(expr)) {
          throw invalidSql(`log_attributes is read by key (log_attributes['request.method']) or selected whole; other uses of the whole map are not supported`, expr.at);
        }
        found.wholeMap = true;
      }
    }
    const item = node as ir.SelectItem;
    if (item.kind === 'star') found.star = true;
    const relation = node as ir.Relation;
    if (isUnifiedLogs(relation)) found.relations.push(relation);
    const set = node as ir.SetExpr;
    if (set.kind === 'select') {
      for (const selected of set.select.items) if (selected.kind === 'expr' && selected.expr.kind === 'ref') wholeMapItems.add(selected.expr);
    }
    if (set.kind === 'select' && set.select.from) {
      const { base, steps } = set.select.from;
      const relations = [base, ...steps.flatMap((step) => (step.kind === 'join' ? [step.relation] : []))];
      if (relations.some(isUnifiedLogs)) {
        for (const selected of set.select.items) if (selected.kind === 'star') found.starsOverLogs.push(selected);
      }
      // Only a WHERE over logs alone: with a join, an unqualified `source` may be another table's.
      const alone = steps.every((step) => step.kind !== 'join');
      const kept = isUnifiedLogs(base) ? sourcesKept(set.select.where, base.alias, alone) : undefined;
      if (kept) found.kept.set(base as SourceRelation, kept);
    }
    return undefined;
  });
  if (found.star && options.refuseStar) throw invalidSql('select * is not allowed on the logs endpoints; list the columns you need');
  if (found.relations.length === 0) return [];
  const columns = COLUMNS.filter((column) => found.star || found.names.has(column));
  // A SELECT needs a column: timestamp, the cheapest to keep, when the query names none.
  if (columns.length === 0 && found.keys.size === 0) columns.push('timestamp');
  const hidden = [...found.keys.values()];
  for (const relation of found.relations) {
    const union = unionOfSources(sources, { columns, keys: found.keys, wholeMap: found.wholeMap }, options, found.kept.get(relation));
    replaceNode(relation, { kind: 'subquery', query: union, alias: relation.alias } satisfies ir.Relation);
  }
  // `SELECT *` over logs shows the table's columns, not the key columns made for this query.
  for (const star of found.starsOverLogs) star.except = [...star.except, ...hidden];
  return options.window ? [options.window.start, options.window.end] : [];
}

/**
 * The source labels a WHERE keeps when one of its conjuncts is `source = 'x'`, `source IN ('x', …)`
 * (or `source_name`): the other sources need not be read at all. undefined when it keeps any.
 */
function sourcesKept(where: ir.Expr | undefined, alias: string, alone: boolean): ReadonlySet<string> | undefined {
  const isSourceColumn = (expr: ir.Expr) =>
    expr.kind === 'ref' &&
    ((expr.path.length === 1 && alone) || (expr.path.length === 2 && expr.path[0]!.toLowerCase() === alias.toLowerCase())) &&
    ['source', 'source_name'].includes(expr.path.at(-1)!.toLowerCase());
  const literals = (exprs: ir.Expr[]) => (exprs.every((expr) => expr.kind === 'string') ? exprs.map((expr) => (expr as { value: string }).value) : undefined);
  for (const conjunct of conjunctsOf(where)) {
    let values: string[] | undefined;
    if (conjunct.kind === 'binary' && conjunct.op === '=') {
      if (isSourceColumn(conjunct.left)) values = literals([conjunct.right]);
      else if (isSourceColumn(conjunct.right)) values = literals([conjunct.left]);
    } else if (conjunct.kind === 'in_list' && !conjunct.negated && isSourceColumn(conjunct.expr)) {
      values = literals(conjunct.list);
    }
    if (values) return new Set(values);
  }
  return undefined;
}

/** What each source's SELECT projects: unified columns, the key columns, and the whole map when read. */
interface Projection {
  columns: UnifiedColumn[];
  keys: ReadonlyMap<string, string>;
  wholeMap: boolean;
}

function unionOfSources(sources: UnifiedLogsSources, projection: Projection, options: UnifiedLogsOptions, kept: ReadonlySet<string> | undefined): ir.Query {
  const branches: Array<{ name: string; relation: string; fields: SourceFields }> = [];
  for (const name of [...sources.names()].sort()) {
    if (kept && !kept.has(sourceLabel(name))) continue;
    const relation = sources.relation(name);
    const shape = sources.shape(name);
    if (relation !== undefined && shape !== undefined) branches.push({ name, relation, fields: new SourceFields(shape.columns) });
  }
  // The whole map is a record of every key any source has (the branches of a UNION ALL share one
  // type), NULL where the event has none.
  const mapKeys = projection.wholeMap ? [...new Set(branches.flatMap((branch) => branch.fields.attributeKeys()))].sort() : [];
  const selects: ir.SetExpr[] = branches.map((branch) => ({ kind: 'select', select: sourceSelect(branch.name, branch.relation, branch.fields, projection, mapKeys, options) }));
  if (selects.length === 0) selects.push({ kind: 'select', select: emptySelect(projection, mapKeys) });
  const body = selects.reduce((left, right) => ({ kind: 'setop', op: 'union', all: true, left, right }));
  return { ctes: [], body, orderBy: [] };
}

const NULL_STRING: ir.Expr = { kind: 'cast', expr: { kind: 'null' }, type: 'STRING', safe: false };

/** `log_attributes` read whole: a STRUCT of every key (dotted names), NULL for those `value` lacks. */
function wholeMap(keys: string[], value: (key: string) => ir.Expr | undefined): ir.Expr {
  return { kind: 'struct', fields: keys.map((key) => ({ name: key, value: value(key) ?? NULL_STRING })) };
}

/** An owner without sources: the table's columns, no rows. */
function emptySelect({ columns, keys, wholeMap: readsMap }: Projection, mapKeys: string[]): ir.Select {
  const items: ir.SelectItem[] = columns.map((column) => ({ kind: 'expr', expr: { kind: 'cast', expr: { kind: 'null' }, type: COLUMN_TYPES[column], safe: false }, alias: column, aliasWritten: true }));
  for (const column of keys.values()) items.push({ kind: 'expr', expr: str(''), alias: column, aliasWritten: true });
  if (readsMap) items.push({ kind: 'expr', expr: wholeMap(mapKeys, () => undefined), alias: MAP_COLUMN, aliasWritten: true });
  return { distinct: false, items, groupBy: [], where: { kind: 'bool', value: false } };
}

function sourceSelect(name: string, relation: string, fields: SourceFields, { columns, keys, wholeMap: readsMap }: Projection, mapKeys: string[], options: UnifiedLogsOptions): ir.Select {
  const item = (expr: ir.Expr, alias: string): ir.SelectItem => ({ kind: 'expr', expr, alias, aliasWritten: true });
  const items = columns.map((column) => item(columnExpr(column, name, fields), column));
  for (const [key, column] of keys) {
    const value = fields.attribute(key);
    items.push(item(value ? call('coalesce', value, str('')) : str(''), column));
  }
  if (readsMap) items.push(item(wholeMap(mapKeys, (key) => fields.attribute(key)), MAP_COLUMN));
  const select: ir.Select = { distinct: false, items, from: { base: { kind: 'source', name, relation, alias: ROW }, steps: [...fields.steps.values()] }, groupBy: [] };
  if (options.window) {
    const bound = (op: '>=' | '<=', parameter: string): ir.Expr => ({
      kind: 'binary',
      op,
      left: ref(ROW, 'timestamp'),
      right: { kind: 'cast', expr: { kind: 'param', name: parameter }, type: 'TIMESTAMP', safe: false },
    });
    select.where = { kind: 'binary', op: 'AND', left: bound('>=', options.window.start), right: bound('<=', options.window.end) };
  }
  return select;
}

function columnExpr(column: UnifiedColumn, sourceName: string, fields: SourceFields): ir.Expr {
  switch (column) {
    case 'id':
    case 'timestamp':
    case 'event_message':
      return ref(ROW, column);
    case 'source':
    case 'source_name':
      return str(sourceLabel(sourceName));
    case 'project':
      return firstOf(PROJECT_PATHS.map((path) => fields.path(path)), str(''));
    case 'severity_text':
      return severityText(fields);
    case 'severity_number': {
      const text = severityText(fields);
      const whens = Object.entries(SEVERITY_NUMBERS).map(([level, number]) => ({ when: str(level), then: { kind: 'number', text: String(number) } as ir.Expr }));
      return { kind: 'case', operand: text, whens, else: { kind: 'number', text: '0' } };
    }
  }
}

function severityText(fields: SourceFields): ir.Expr {
  const paths = SEVERITY_PATHS.map((path) => fields.path(path));
  if (paths.every((path) => path === undefined)) return str('INFO');
  const level = call('upper', firstOf(paths, str('INFO')));
  return { kind: 'case', whens: [{ when: { kind: 'in_list', expr: level, list: OTEL_LEVELS.map(str), negated: false }, then: level }], else: str('INFO') };
}

/** The first of `exprs` (undefined: the source has no such field) that is not NULL, else `otherwise`. */
function firstOf(exprs: Array<ir.Expr | undefined>, otherwise: ir.Expr): ir.Expr {
  const present = exprs.filter((expr): expr is ir.Expr => expr !== undefined);
  return present.length === 0 ? otherwise : call('coalesce', ...present, otherwise);
}

/**
 * One source's fields, read as strings by dotted path. A field inside a nested object is read
 * through LEFT JOIN UNNEST of each record on its path (one step per record, shared by every field
 * under it), the form both warehouses read fastest: DuckDB's select-list unnest reads only the
 * struct fields named, ClickHouse's ARRAY JOIN only the leaf subcolumns (a subscript,
 * `metadata[SAFE_OFFSET(0)]`, decodes the whole record: 6× slower on DuckDB, 10× on chdb, at
 * 200k edge events). An object is stored as a one-element record, so the rows stay one per event.
 */
class SourceFields {
  private readonly metadata: Column[];
  /** The UNNEST steps made so far, by record path (`metadata.request`), in order of need. */
  readonly steps = new Map<string, Extract<ir.FromStep, { kind: 'unnest' }>>();

  constructor(private readonly columns: Column[]) {
    const metadata = findColumn(columns, 'metadata');
    this.metadata = metadata ? recordFields(metadata.type) ?? [] : [];
  }

  /** A field by its path from the event's top (`metadata.level`), as a string, or undefined when the source has none. */
  path(dotted: string): ir.Expr | undefined {
    return this.readLeaf([], this.columns.filter((column) => !FIXED_FIELDS.has(column.name)), dotted.split('.'));
  }

  /**
   * `log_attributes[key]`: the event's fields with `metadata`'s lifted to the top, where a
   * top-level field of the same first name wins. undefined when the source has no such key.
   */
  attribute(key: string): ir.Expr | undefined {
    const parts = key.split('.');
    const head = parts[0]!;
    if (head !== 'metadata' && !FIXED_FIELDS.has(head) && this.columns.some((column) => column.name === head)) {
      return this.readLeaf([], this.columns, parts);
    }
    if (this.metadata.some((column) => column.name === head)) return this.readLeaf(['metadata'], this.metadata, parts);
    return undefined;
  }

  /** Every key `attribute` answers for this source: its leaves' dotted paths, `metadata`'s lifted. */
  attributeKeys(): string[] {
    const leaves = (columns: Column[], prefix: string): string[] =>
      columns.flatMap((column) => {
        const nested = recordFields(column.type);
        if (nested) return leaves(nested, `${prefix}${column.name}.`);
        return column.type.kind === 'scalar' || (column.type.kind === 'array' && column.type.element.kind === 'scalar') ? [`${prefix}${column.name}`] : [];
      });
    const topLevel = this.columns.filter((column) => column.name !== 'metadata' && !FIXED_FIELDS.has(column.name));
    const lifted = this.metadata.filter((column) => !topLevel.some((top) => top.name === column.name));
    return [...leaves(topLevel, ''), ...leaves(lifted, '')];
  }

  /** The leaf at `parts` under the record at `record` (its path from the row; [] for the row itself). */
  private readLeaf(record: string[], columns: Column[], parts: string[]): ir.Expr | undefined {
    const [head, ...rest] = parts;
    const column = columns.find((candidate) => candidate.name === head);
    if (!column) return undefined;
    const nested = recordFields(column.type);
    if (rest.length > 0) return nested ? this.readLeaf([...record, column.name], nested, rest) : undefined;
    if (nested) return undefined; // an object is not a key of the map, its leaves are
    return stringOf(ref(this.element(record), column.name), column.type);
  }

  /** The range variable of the record at `path`: the row, or the alias of its UNNEST step. */
  private element(path: string[]): string {
    if (path.length === 0) return ROW;
    const key = path.join('.');
    const existing = this.steps.get(key);
    if (existing) return existing.alias;
    const parent = this.element(path.slice(0, -1));
    const alias = `__record_${this.steps.size}`;
    this.steps.set(key, { kind: 'unnest', array: ref(parent, path.at(-1)!), alias, keepEmpty: true });
    return alias;
  }
}

function recordFields(type: SqlType): Column[] | undefined {
  return type.kind === 'array' && type.element.kind === 'struct' ? type.element.fields : undefined;
}

/** A leaf as the map holds it: strings as they are, numbers and booleans as text, lists as JSON text. */
function stringOf(value: ir.Expr, type: SqlType): ir.Expr | undefined {
  if (type.kind === 'scalar') return type.name === 'STRING' ? value : asString(value);
  if (type.kind !== 'array' || type.element.kind !== 'scalar') return undefined;
  const quoted = type.element.name === 'STRING';
  const joined = call('array_to_string', quoted ? value : arrayOfStrings(value), str(quoted ? '","' : ','));
  const open = quoted ? '["' : '[';
  const close = quoted ? '"]' : ']';
  return {
    kind: 'case',
    whens: [{ when: { kind: 'binary', op: '=', left: call('array_length', value), right: { kind: 'number', text: '0' } }, then: str('[]') }],
    else: call('concat', str(open), joined, str(close)),
  };
}

/** `ARRAY(SELECT CAST(e AS STRING) FROM UNNEST(value) AS e)`. */
function arrayOfStrings(value: ir.Expr): ir.Expr {
  const select: ir.Select = {
    distinct: false,
    items: [{ kind: 'expr', expr: asString(ref('__element')), alias: '__element', aliasWritten: true }],
    from: { base: { kind: 'unnest', array: value, alias: '__element' }, steps: [] },
    groupBy: [],
  };
  return { kind: 'array_subquery', query: { ctes: [], body: { kind: 'select', select }, orderBy: [] } };
}
