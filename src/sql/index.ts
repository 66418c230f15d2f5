/**
 * The SQL translator: endpoint queries in BigQuery SQL (`bq_sql`, the default) or ClickHouse SQL
 * (`ch_sql`) → one engine's SQL. One tree, several front ends (sqlglot's model):
 *
 * parse (sqlparser-rs, the language's grammar) → lower (validate, make the language's semantics
 * explicit, resolve tables; BigQuery: lower.ts, ClickHouse: clickhouse/lower.ts) → analyze (resolve every name against the tables' columns, types; analyze.ts)
 * → the engine's SqlDialect prints the tree. Every refusal is an AppError 400 `invalid_sql`
 * whose message names the problem, with {line, column} when known.
 */

import { analyze } from './analyze.ts';
import type { SqlType, TableShape } from './catalog.ts';
import type { AstQuery } from './ast.ts';
import type * as ir from './ir.ts';
import { lowerCtes, lowerQuery, type LowerOptions, type MakeLowering } from './lower.ts';
import { clickHouseFrontEnd } from './clickhouse/index.ts';
import { selectExpressions, subExpressions } from './unnest-chains.ts';
import { AppError } from '../errors.ts';
import { invalidSql } from './parse.ts';
import { parseQuery } from './parse.ts';
import type { SqlDialect } from './dialect.ts';
import { expandUnifiedLogs, unifiedLogsResolver, type UnifiedLogsOptions } from './unified-logs.ts';

export type { SqlDialect } from './dialect.ts';
export type { TableShape } from './catalog.ts';
export { shapeOfSource } from './catalog.ts';
export { invalidSql } from './parse.ts';

/** The language an endpoint's query is written in (Logflare's names). */
export type SqlLanguage = 'bq_sql' | 'ch_sql';

export const SQL_LANGUAGES: readonly SqlLanguage[] = ['bq_sql', 'ch_sql'];

/** A language's parser and lowering; everything after lowering is shared. */
export interface FrontEnd {
  parse(sql: string): ParsedQuery;
}

interface ParsedQuery {
  ast: AstQuery;
  lowering?: MakeLowering;
  /** Checks once the query is lowered. */
  afterLowering?(): void;
  /** Rewrites that need the analyzer's type of an expression. */
  afterAnalysis?(typeOf: (expr: ir.Expr) => SqlType | undefined): void;
}

const bigQueryFrontEnd: FrontEnd = { parse: (sql) => ({ ast: parseQuery(sql) }) };

function frontEnd(language: SqlLanguage): FrontEnd {
  return language === 'ch_sql' ? clickHouseFrontEnd : bigQueryFrontEnd;
}

function lowerIn(parsed: ParsedQuery, options: LowerOptions) {
  const lowered = lowerQuery(parsed.ast, options, parsed.lowering);
  parsed.afterLowering?.();
  return lowered;
}

/** Analyze, then let the front ends rewrite what needed types; the query's output columns. */
function analyzeFor(parsed: ParsedQuery[], query: ir.Query, ctx: TranslateContext): TableShape {
  const rewrites = parsed.filter((item) => item.afterAnalysis);
  if (rewrites.length === 0) return analyze(query, analyzeOptions(ctx));
  const types = new WeakMap<ir.Expr, SqlType>();
  const output = analyze(query, { ...analyzeOptions(ctx), typed: (expr, type) => types.set(expr, type) });
  for (const item of rewrites) item.afterAnalysis?.((expr) => types.get(expr));
  return output;
}

export interface TranslateContext {
  /**
   * Resolve a table name as written in the query (`cloudflare.logs.prod`, `deno-relay-logs`,
   * backticks removed and dotted parts joined with '.') to the engine's relation SQL, or
   * undefined when the caller has no such source.
   */
  resolveTable(name: string): string | undefined;
  /**
   * The columns of the source `resolveTable` resolved `name` to. Without it (or when it answers
   * undefined) names that could be the source's columns are not checked.
   */
  tableShape?(name: string): TableShape | undefined;
  /** The sources the query could name, for "Did you mean" when it names another. */
  tableNames?(): Iterable<string>;
  /**
   * How the unified `logs` table reads (unified-logs.ts). It exists when the context lists its
   * sources and their shapes and none is named `logs`; `only` makes it the one table a query may read.
   */
  unifiedLogs?: UnifiedLogsOptions & { only?: boolean };
  /**
   * Endpoint composition: the query of the caller's endpoint `name`, which a query may read as a
   * table when no source has that name (Logflare's `select … from \`my.date\``), or undefined.
   */
  endpointQuery?(name: string): { query: string; language: SqlLanguage } | undefined;
  /** The endpoint being translated (or saved), so that reading it again is refused as a cycle. */
  endpointName?: string;
}

/** Endpoints reading endpoints: how deep the chain may go. */
export const MAX_ENDPOINT_DEPTH = 8;

/**
 * Tables Supabase Studio queries that a stack may have no source for (and `logs.all` no CTE):
 * a sandboxed query reading one answers no rows instead of an error.
 */
export const OPTIONAL_LOG_TABLES: ReadonlySet<string> = new Set([
  'auth_audit_logs',
  'supavisor_logs',
  'pg_upgrade_logs',
  'pg_cron_logs',
  'etl_replication_logs',
  'multigres_logs',
  'function_edge_logs',
]);

/** A query that answers no rows, for a sandboxed query that reads an optional table the endpoint lacks. */
const NO_ROWS: ir.Query = {
  ctes: [],
  body: {
    kind: 'select',
    select: { distinct: false, items: [{ kind: 'expr', expr: { kind: 'number', text: '1' }, alias: 'empty', aliasWritten: true }], groupBy: [], where: { kind: 'bool', value: false } },
  },
  orderBy: [],
};

export interface Translation {
  /** One SELECT (or WITH … SELECT) statement of the engine's SQL. */
  sql: string;
  /**
   * The `@name` parameters the SQL uses, without `@`. Bind exactly these (a value missing from
   * the request is NULL): DuckDB rejects binding a name the statement does not use.
   */
  parameters: string[];
  /** Other endpoints the query reads as tables, directly or through them (composition). */
  endpoints?: string[];
}

export function translate(sql: string, dialect: SqlDialect, ctx: TranslateContext, language: SqlLanguage = 'bq_sql'): Translation {
  const logs = unifiedLogsResolver(ctx);
  const parsed = [frontEnd(language).parse(sql)];
  const reads = new EndpointReads(ctx, logs.resolveTable, parsed);
  const lowered = lowerIn(parsed[0]!, { resolveTable: logs.resolveTable, tableNames: () => (ctx.unifiedLogs?.only ? [] : (ctx.tableNames?.() ?? [])), ...reads.reader() });
  const windowParameters = expandUnifiedLogs(lowered.query, logs.sources, ctx.unifiedLogs);
  const output = analyzeFor(parsed, lowered.query, ctx);
  return { sql: dialect.generate(lowered.query, output), parameters: [...new Set([...lowered.parameters, ...windowParameters])], ...reads.names() };
}

/**
 * Endpoint composition: a table name that is no source but one of the caller's endpoints reads
 * that endpoint's query as a subquery, lowered like the rest (its parameters become the
 * query's: a request's values reach both). A chain that comes back to an endpoint on it is
 * refused, at the name that closes it.
 */
class EndpointReads {
  private readonly read = new Set<string>();

  constructor(
    private readonly ctx: TranslateContext,
    private readonly resolveTable: (name: string) => string | undefined,
    /** Every query parsed for the translation (their front ends' rewrites run after analysis). */
    private readonly parsed: ParsedQuery[],
  ) {}

  /** The lowering option that reads endpoints, from a query on the chain `reading`. */
  reader(reading: string[] = this.ctx.endpointName === undefined ? [] : [this.ctx.endpointName]): Pick<LowerOptions, 'readEndpoint'> {
    const endpointQuery = this.ctx.endpointQuery;
    if (!endpointQuery) return {};
    return {
      readEndpoint: (name, at) => {
        const written = endpointQuery(name);
        if (!written) return undefined;
        if (reading.includes(name)) throw invalidSql(`endpoint ${name} would read itself: ${[...reading, name].join(' → ')}`, at);
        if (reading.length >= MAX_ENDPOINT_DEPTH) throw invalidSql(`endpoint ${name} is read through more than ${MAX_ENDPOINT_DEPTH} endpoints`, at);
        this.read.add(name);
        try {
          const parsed = frontEnd(written.language).parse(written.query);
          this.parsed.push(parsed);
          return lowerIn(parsed, { resolveTable: this.resolveTable, ...this.reader([...reading, name]) });
        } catch (error) {
          // Its own positions point into the other endpoint's text: name it, at the name read.
          if (!(error instanceof AppError) || error.code !== 'invalid_sql' || error.message.startsWith(`endpoint ${name}`)) throw error;
          throw invalidSql(`endpoint ${name}: ${error.message.replace(/ (\(line \d+, column \d+\)|at \[\d+:\d+\])$/, '')}`, at);
        }
      },
    };
  }

  names(): Pick<Translation, 'endpoints'> {
    return this.read.size > 0 ? { endpoints: [...this.read] } : {};
  }
}

/**
 * Validate a query without an engine (at endpoint creation) and report what it uses: its
 * parameters, the source names it reads (any name not a CTE counts as a source), and its
 * top-level CTE names (what a sandboxed consumer query may read).
 */
export function describeQuery(sql: string, language: SqlLanguage = 'bq_sql'): { parameters: string[]; tables: string[]; ctes: string[] } {
  const lowered = lowerIn(frontEnd(language).parse(sql), { resolveTable: (name) => name });
  return { parameters: lowered.parameters, tables: lowered.sources, ctes: lowered.query.ctes.map((cte) => cte.name) };
}

/**
 * Sandboxing: `consumerSql` replaces the final SELECT of `endpointSql`, keeping the endpoint's
 * CTEs, and may read only those CTEs (and its own).
 */
export function translateSandboxed(endpointSql: string, consumerSql: string, dialect: SqlDialect, ctx: TranslateContext, language: SqlLanguage = 'bq_sql'): Translation {
  const logs = unifiedLogsResolver(ctx);
  const endpointParsed = frontEnd(language).parse(endpointSql);
  const parsed = [endpointParsed];
  const reads = new EndpointReads(ctx, logs.resolveTable, parsed);
  const endpoint = lowerCtes(endpointParsed.ast, { resolveTable: logs.resolveTable, ...reads.reader() }, endpointParsed.lowering);
  endpointParsed.afterLowering?.();
  if (endpoint.ctes.length === 0) throw invalidSqlNoCtes();
  let readsOptionalTable = false;
  const consumerParsed = frontEnd(language).parse(consumerSql);
  const consumer = lowerQuery(consumerParsed.ast, {
    resolveTable: (name) => {
      if (!OPTIONAL_LOG_TABLES.has(name.toLowerCase())) return undefined;
      readsOptionalTable = true;
      return name;
    },
    outerCtes: new Set(endpoint.ctes.map((cte) => cte.name.toLowerCase())),
    unknownTableMessage: 'table {name} is not one of the endpoint\'s CTEs; sandboxed queries may read only those',
  }, consumerParsed.lowering);
  consumerParsed.afterLowering?.();
  if (readsOptionalTable) return { sql: dialect.generate(NO_ROWS), parameters: [] };
  const query = { ...consumer.query, ctes: [...withoutShadowed(endpoint.ctes, consumer.query.ctes), ...consumer.query.ctes] };
  const windowParameters = expandUnifiedLogs(query, logs.sources, ctx.unifiedLogs);
  const output = analyzeFor([...parsed, consumerParsed], query, ctx);
  const parameters = [...new Set([...endpoint.parameters, ...consumer.parameters, ...windowParameters])];
  return { sql: dialect.generate(query, output), parameters, ...reads.names() };
}

/**
 * The endpoint's CTEs, those the sandboxed query defines again renamed (`cte2` → `cte2_1`), with
 * the endpoint's own reads of them: the sandboxed query's CTE shadows the endpoint's, which stays
 * what the endpoint's other CTEs read. Both are printed in one WITH, where a name may appear once.
 */
function withoutShadowed(endpointCtes: ir.Cte[], consumerCtes: ir.Cte[]): ir.Cte[] {
  const taken = new Set([...endpointCtes, ...consumerCtes].map((cte) => cte.name.toLowerCase()));
  const shadowed = new Set(consumerCtes.map((cte) => cte.name.toLowerCase()).filter((name) => endpointCtes.some((cte) => cte.name.toLowerCase() === name)));
  const renames = new Map<string, string>();
  for (const name of shadowed) {
    let suffix = 1;
    while (taken.has(`${name}_${suffix}`)) suffix++;
    taken.add(`${name}_${suffix}`);
    renames.set(name, `${name}_${suffix}`);
  }
  if (renames.size === 0) return endpointCtes;
  return endpointCtes.map((cte) => {
    renameCteReads(cte.query, renames);
    return { ...cte, name: renames.get(cte.name.toLowerCase()) ?? cte.name };
  });
}

/** Point the query's reads of the CTEs in `renames` (lower-case name → new name) at their new names. */
function renameCteReads(query: ir.Query, renames: ReadonlyMap<string, string>): void {
  // A nested WITH that defines the name again shadows it below.
  const inner = new Map([...renames].filter(([name]) => !query.ctes.some((cte) => cte.name.toLowerCase() === name)));
  for (const cte of query.ctes) renameCteReads(cte.query, inner);
  const relation = (item: ir.Relation) => {
    if (item.kind === 'cte') item.name = inner.get(item.name.toLowerCase()) ?? item.name;
    else if (item.kind === 'subquery') renameCteReads(item.query, inner);
  };
  const expr = (node: ir.Expr): void => {
    if (node.kind === 'in_subquery' || node.kind === 'exists' || node.kind === 'subquery' || node.kind === 'array_subquery') renameCteReads(node.query, inner);
    subExpressions(node).forEach(expr);
  };
  const body = (set: ir.SetExpr): void => {
    if (set.kind === 'nested') return renameCteReads(set.query, inner);
    if (set.kind === 'setop') return [set.left, set.right].forEach(body);
    const { select } = set;
    if (select.from) {
      relation(select.from.base);
      for (const step of select.from.steps) if (step.kind === 'join') relation(step.relation);
    }
    selectExpressions(select).forEach(expr);
  };
  body(query.body);
}

function analyzeOptions(ctx: TranslateContext) {
  return ctx.tableShape ? { tableShape: (name: string) => ctx.tableShape?.(name) } : {};
}

function invalidSqlNoCtes() {
  return invalidSql('the endpoint query has no CTEs, so it cannot be sandboxed');
}
