/**
 * BigQuery's documented examples out of a function reference page (ZetaSQL's markdown, the source
 * BigQuery's pages are generated from): each query with the result table printed after it, the
 * function heading it sits under, and why it cannot be run when it cannot.
 *
 * Three shapes of example are read:
 * - a fenced block holding a query and, after it, its result as a comment table
 *   (`/*---+ | col | … +---*\/`), or a markdown pipe table right after the block;
 * - an HTML table of inputs and results (`X | SQRT(X)`, `Expression | Return Value`), one example a
 *   row whose cells are literal values;
 * - a query with no printed result, kept to be counted as skipped.
 */

import { isQuery, QueryText, significant, splitStatements } from './sql-text.ts';

export interface PrintedTable {
  /** Column names as printed; undefined when the table prints no header row. */
  header?: string[];
  rows: string[][];
}

export interface Example {
  /** page/function/ordinal, e.g. `string_functions/CONCAT/2`. */
  id: string;
  page: string;
  functionName: string;
  /** 1-based line of the example in its page. */
  line: number;
  /** The query as written on the page. */
  docSql: string;
  /** The query to run: the page's, with the tables it defines elsewhere inlined as CTEs. */
  sql: string;
  table?: PrintedTable;
  /** Why the example cannot be compared (set by the extractor or the classifier). */
  skip?: SkipReason;
  skipDetail?: string;
}

export type SkipReason =
  | 'no printed result'
  | 'error stated'
  | 'needs a table defined elsewhere'
  | 'unreadable printed table'
  | 'nondeterministic'
  | 'out of scope'
  | 'not in BigQuery';

/** A table a page defines once for several examples (`Produce`, `Items`), as a CTE body. */
interface Definition {
  /** Lower-case, to match a name however a query spells it. */
  name: string;
  /** As the page spells it. */
  spelling: string;
  line: number;
  query?: string;
}

export function extractExamples(page: string, markdown: string): Example[] {
  const lines = markdown.split('\n');
  const examples: Example[] = [];
  const definitions: Definition[] = [];
  const ordinals = new Map<string, number>();
  let heading = { level: 1, name: page };
  const add = (example: Omit<Example, 'id' | 'page' | 'functionName' | 'sql'> & { sql?: string }) => {
    const ordinal = (ordinals.get(heading.name) ?? 0) + 1;
    ordinals.set(heading.name, ordinal);
    examples.push({ ...example, id: `${page}/${heading.name}/${ordinal}`, page, functionName: heading.name, sql: example.sql ?? example.docSql });
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const headingMatch = line.match(/^(#{2,6})\s+(.*?)\s*$/);
    if (headingMatch) {
      heading = nextHeading(heading, headingMatch[1]!.length, headingMatch[2]!);
      continue;
    }
    const fence = line.match(/^(\s*)```\s*(\w*)\s*$/);
    if (fence) {
      const end = lines.findIndex((l, j) => j > i && /^\s*```\s*$/.test(l));
      const body = lines.slice(i + 1, end < 0 ? lines.length : end);
      const after = end < 0 ? lines.length : end + 1;
      const pipeTable = readPipeTable(lines, after);
      const prose = precedingProse(lines, i);
      const segments = blockSegments(body, i + 2);
      for (const segment of segments) {
        const statements = splitStatements(segment.query);
        for (const [index, statement] of statements.entries()) {
          const definition = definitionIn(statement, segment.line);
          if (definition) definitions.push(definition);
          if (!isQuery(statement)) continue;
          const last = index === statements.length - 1;
          const table = (last ? (segment.table ?? (segment.final ? pipeTable?.table : undefined)) : undefined) ?? resultInComment(statement);
          if (table === 'unreadable') add({ line: segment.line, docSql: statement, skip: 'unreadable printed table' });
          else if (table) add({ line: segment.line, docSql: statement, table });
          else add({ line: segment.line, docSql: statement, skip: statesError(statement + '\n' + prose) ? 'error stated' : 'no printed result' });
        }
      }
      i = after - 1;
      continue;
    }
    if (/^\s*<table>/.test(line)) {
      const end = lines.findIndex((l, j) => j > i && /<\/table>/.test(l));
      for (const example of htmlTableExamples(lines.slice(i, end < 0 ? lines.length : end + 1).join('\n'), i + 1)) add(example);
      i = end < 0 ? lines.length : end;
    }
  }
  return examples.map((example) => withDefinitions(example, definitions));
}

function nextHeading(current: { level: number; name: string }, level: number, text: string): { level: number; name: string } {
  const code = text.match(/`([^`]+)`/);
  if (code) return { level, name: code[1]!.trim().replace(/\s+/g, '_') };
  if (level <= current.level) return { level, name: text.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '').toLowerCase() };
  return current;
}

/** The paragraph just before line `index` (a hint that the example shows an error). */
function precedingProse(lines: string[], index: number): string {
  let j = index - 1;
  while (j >= 0 && lines[j]!.trim() === '') j--;
  const end = j;
  while (j >= 0 && lines[j]!.trim() !== '' && !/^\s*```/.test(lines[j]!) && !/^#/.test(lines[j]!)) j--;
  return lines.slice(j + 1, end + 1).join('\n');
}

/** A result the page gives as a comment on the statement: `-- Returns a SQL NULL`, `-- Returns a JSON 'null'`. */
function resultInComment(statement: string): PrintedTable | undefined {
  if (/--\s*Returns (a )?SQL NULL\b/i.test(statement)) return { rows: [['NULL']] };
  if (/--\s*Returns a JSON 'null'/i.test(statement)) return { rows: [['null']] };
  return undefined;
}

const statesError = (text: string) => /\berror\b|\bfails?\b|\binvalid\b|OUT_OF_RANGE/i.test(text);

interface Segment {
  query: string;
  /** 1-based line of the segment's first line. */
  line: number;
  table?: PrintedTable | 'unreadable';
  /** The block's last segment (a pipe table after the block belongs to it). */
  final: boolean;
}

/** A block's queries, each with the comment table that follows it. */
function blockSegments(body: string[], firstLine: number): Segment[] {
  const segments: Segment[] = [];
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    if (!/^\s*\/\*[-+]/.test(body[i]!)) continue;
    // The table ends at its `*/`, or (its closing slash forgotten) before the first line that is
    // neither a row nor a border.
    let end = i + 1;
    while (end < body.length && !body[end]!.includes('*/') && /^\s*(\||[-+*=]+\s*$)/.test(body[end]!)) end++;
    if (end < body.length && !body[end]!.includes('*/')) end--;
    end = Math.min(end, body.length - 1);
    segments.push({ query: body.slice(start, i).join('\n'), line: firstLine + start, table: parseCommentTable(body.slice(i, end + 1)), final: false });
    start = end + 1;
    i = end;
  }
  const rest = body.slice(start).join('\n');
  if (significant(rest).length > 0 || segments.length === 0) segments.push({ query: rest, line: firstLine + start, final: true });
  else segments[segments.length - 1]!.final = true;
  return segments;
}

/**
 * A result printed as a comment table. Border lines hold only `+ - / *`; content lines start with
 * `|`. The rows before the second border are the header, unless there is only one group of rows.
 */
function parseCommentTable(lines: string[]): PrintedTable | 'unreadable' {
  const groups: string[][] = [[]];
  for (const line of lines) {
    const trimmed = line.trim();
    // Borders: `+---+`, `/*---`, `---*/`, and `|-----|` as some pages draw the header's rule.
    if (/^[|/*+\-=:\s]+$/.test(trimmed) && /---/.test(trimmed)) {
      if (groups[groups.length - 1]!.length > 0) groups.push([]);
    } else if (trimmed.startsWith('|')) {
      groups[groups.length - 1]!.push(line);
    } else if (trimmed !== '') {
      return 'unreadable';
    }
  }
  const filled = groups.filter((group) => group.length > 0);
  if (filled.length === 0) return 'unreadable';
  if (filled.length === 1) {
    const rows = filled[0]!.map(splitRow);
    return sameWidth(rows) ? { rows } : 'unreadable';
  }
  if (filled.length > 2 || filled[0]!.length !== 1) return 'unreadable';
  const header = splitRow(filled[0]![0]!);
  const rows = filled[1]!.map((line) => splitRow(line));
  const aligned = rows.map((row, index) => (row.length === header.length ? row : splitByHeader(filled[1]![index]!, filled[0]![0]!)));
  return aligned.every((row) => row && row.length === header.length) ? { header, rows: aligned as string[][] } : 'unreadable';
}

function splitRow(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split('|').map((cell) => cell.trim());
}

/** A row whose values contain `|`, cut at the header's column boundaries. */
function splitByHeader(line: string, header: string): string[] | undefined {
  const bounds = [...header.matchAll(/\|/g)].map((m) => m.index!);
  if (bounds.length < 2) return undefined;
  const cells: string[] = [];
  for (let k = 0; k < bounds.length - 1; k++) {
    if (k > 0 && line[bounds[k]!] !== '|') return undefined;
    cells.push(line.slice(bounds[k]! + 1, bounds[k + 1]!).trim());
  }
  return cells;
}

const sameWidth = (rows: string[][]) => rows.every((row) => row.length === rows[0]!.length);

/** A markdown pipe table starting at line `from` (blank lines skipped). */
function readPipeTable(lines: string[], from: number): { table: PrintedTable | 'unreadable' } | undefined {
  let i = from;
  while (i < lines.length && lines[i]!.trim() === '') i++;
  if (!lines[i]?.trim().startsWith('|') || !/^\s*\|[\s:|-]+\|\s*$/.test(lines[i + 1] ?? '')) return undefined;
  const header = splitRow(lines[i]!);
  const rows: string[][] = [];
  for (let j = i + 2; j < lines.length && lines[j]!.trim().startsWith('|'); j++) rows.push(splitRow(decodeEntities(lines[j]!)));
  return { table: rows.every((row) => row.length === header.length) ? { header, rows } : 'unreadable' };
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { nbsp: ' ', lt: '<', gt: '>', amp: '&', quot: '"', pi: 'π', apos: "'" };
  return text.replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity.startsWith('#x') || entity.startsWith('#X')) return String.fromCodePoint(parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(Number(entity.slice(1)));
    return named[entity.toLowerCase()] ?? whole;
  });
}

// ---- HTML tables of inputs and results --------------------------------------------------------------

/** A literal cell of an HTML example table as BigQuery SQL, or undefined when it is not a literal. */
function literalSql(cell: string): string | undefined {
  const value = cell.trim();
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value)) return value;
  if (/^\+?inf$/i.test(value)) return "CAST('inf' AS FLOAT64)";
  if (/^-inf$/i.test(value)) return "CAST('-inf' AS FLOAT64)";
  if (/^nan$/i.test(value)) return "CAST('nan' AS FLOAT64)";
  if (/^(NULL|TRUE|FALSE)$/i.test(value)) return value.toUpperCase();
  if (/^(NUMERIC|BIGNUMERIC)\s+"[^"]*"$/.test(value)) return value;
  return undefined;
}

function htmlCells(row: string, tag: 'th' | 'td'): string[] {
  return [...row.matchAll(new RegExp(`<${tag}[^>]*>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => decodeEntities(m[1]!.replace(/<[^>]+>/g, '')).trim());
}

/**
 * One example a row of an HTML table whose header names input variables and a call
 * (`X | Y | POW(X, Y)`), or whose columns are `Expression | Return Value`. Rows whose cells are
 * not literal values (`X < 0`, `Any value`) describe a domain, not an example, and are not counted.
 */
function htmlTableExamples(html: string, firstLine: number): Array<Omit<Example, 'id' | 'page' | 'functionName' | 'sql'>> {
  const header = htmlCells(html.match(/<thead>[\s\S]*?<\/thead>/)?.[0] ?? '', 'th');
  const bodyRows = [...(html.match(/<tbody>([\s\S]*?)<\/tbody>/)?.[1] ?? '').matchAll(/<tr>([\s\S]*?)<\/tr>/g)];
  const examples: Array<Omit<Example, 'id' | 'page' | 'functionName' | 'sql'>> = [];
  const lineOf = (index: number | undefined) => firstLine + html.slice(0, index ?? 0).split('\n').length - 1;
  const expressionTable = header.length === 2 && /^expression$/i.test(header[0]!) && /^(return value|result)$/i.test(header[1]!);
  const call = header[header.length - 1] ?? '';
  const variables = header.slice(0, -1);
  const callTable = variables.length > 0 && /^[A-Z_][A-Z0-9_.]*\(.*\)$/.test(call) && variables.every((v) => /^[A-Z][A-Z0-9]*(,\.\.\.,[A-Z][A-Z0-9]*)?$/.test(v));
  if (!expressionTable && !callTable) return [];
  for (const row of bodyRows) {
    const cells = htmlCells(row[1]!, 'td');
    if (cells.length !== header.length) continue;
    const result = cells[cells.length - 1]!;
    let sql: string | undefined;
    if (expressionTable) {
      sql = /^[A-Z_][A-Z0-9_.]*\(.*\)$/.test(cells[0]!) ? `SELECT ${withLiteralSpecials(cells[0]!)}` : undefined;
    } else {
      const values = cells.slice(0, -1).map((cell, k) => (variables[k]!.includes(',...,') ? listSql(cell) : literalSql(cell)));
      if (values.every((v) => v !== undefined)) sql = `SELECT ${substitute(call, variables, values as string[])}`;
    }
    const concreteResult = literalSql(result) !== undefined || /^error$/i.test(result);
    if (!sql || !concreteResult) continue;
    const line = lineOf(row.index);
    if (/^error$/i.test(result)) examples.push({ line, docSql: sql, skip: 'error stated' });
    else examples.push({ line, docSql: sql, table: { rows: [[result]] } });
  }
  return examples;
}

/** `ROUND(+inf)` as the page writes it → `ROUND(CAST('inf' AS FLOAT64))`. */
function withLiteralSpecials(expression: string): string {
  return expression.replace(/(^|[(,\s])([+-]?)(inf|NaN)\b/gi, (_, before: string, sign: string, word: string) => `${before}${literalSql(sign + word)}`);
}

function listSql(cell: string): string | undefined {
  const items = cell.split(',').map(literalSql);
  return items.every((item) => item !== undefined) ? items.join(', ') : undefined;
}

/** The call with each variable replaced by its value (`X1,...,XN` by the whole list). */
function substitute(call: string, variables: string[], values: string[]): string {
  let text = call;
  variables.forEach((variable, k) => {
    if (variable.includes(',...,')) text = text.split(variable).join(values[k]!);
  });
  return text.replace(/\b[A-Z][A-Z0-9]*\b/g, (word, offset: number) => {
    const k = variables.indexOf(word);
    // Only whole arguments: a variable name inside the function's own name stays.
    const before = text[offset - 1];
    return k >= 0 && !variables[k]!.includes(',...,') && (before === '(' || before === ',' || before === ' ') ? values[k]! : word;
  });
}

// ---- tables defined once for several examples ---------------------------------------------------------

/** `CREATE TABLE t AS query` or `WITH t AS (query) SELECT * FROM t`: t's rows as a CTE body. */
function definitionIn(statement: string, line: number): Definition | undefined {
  const create = statement.match(/^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP(?:ORARY)?\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([\w.`]+)\s*([\s\S]*)$/i);
  if (create) {
    const spelling = create[1]!.replace(/`/g, '');
    const as = create[2]!.match(/^(?:\([^)]*\)\s*)?AS\s*([\s\S]+)$/i);
    return { name: spelling.toLowerCase(), spelling, line, query: as ? unwrapParens(as[1]!) : undefined };
  }
  const withStar = statement.match(/^\s*WITH\s+([\w`]+)\s+AS\s*\(([\s\S]*)\)\s*SELECT\s+\*\s+FROM\s+([\w`]+)\s*$/i);
  if (withStar && withStar[1]!.toLowerCase() === withStar[3]!.toLowerCase()) {
    const body = withStar[2]!;
    // The parenthesis closing the CTE must be the last one: one CTE, nothing else.
    const spelling = withStar[1]!.replace(/`/g, '');
    if (balanced(body)) return { name: spelling.toLowerCase(), spelling, line, query: body.trim() };
  }
  return undefined;
}

function balanced(text: string): boolean {
  let depth = 0;
  for (const t of significant(text)) {
    if (t.kind !== 'punct') continue;
    if (t.text === '(') depth++;
    if (t.text === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

function unwrapParens(query: string): string {
  const trimmed = query.trim();
  return trimmed.startsWith('(') && trimmed.endsWith(')') && balanced(trimmed.slice(1, -1)) ? trimmed.slice(1, -1).trim() : trimmed;
}

/** The example with the tables it reads and does not define inlined from the page's definitions, or skipped. */
function withDefinitions(example: Example, definitions: Definition[]): Example {
  if (example.skip) return example;
  const missing = new QueryText(example.docSql).tablesRead();
  if (missing.length === 0) return example;
  const ctes: string[] = [];
  for (const name of missing) {
    const candidates = definitions.filter((d) => d.name === name);
    const definition = candidates.filter((d) => d.line < example.line).at(-1) ?? candidates[0];
    if (!definition?.query) {
      return { ...example, skip: 'needs a table defined elsewhere', skipDetail: definition ? `${name} is created without AS SELECT` : `${name} is not defined on the page` };
    }
    // Named as the query spells it: ClickHouse compares CTE names with case.
    const spelling = significant(example.docSql).find((t) => (t.kind === 'ident' || t.kind === 'quoted') && (t.body ?? t.text).toLowerCase() === name);
    ctes.push(`${quoteName(spelling?.body ?? spelling?.text ?? definition.spelling)} AS (\n${definition.query}\n)`);
  }
  return { ...example, sql: prependCtes(example.docSql, ctes) };
}

const quoteName = (name: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `\`${name}\``);

function prependCtes(sql: string, ctes: string[]): string {
  const first = significant(sql)[0];
  if (first && first.kind === 'ident' && first.text.toUpperCase() === 'WITH') {
    const at = first.start + first.text.length;
    return `${sql.slice(0, at)} ${ctes.join(',\n')},${sql.slice(at)}`;
  }
  return `WITH ${ctes.join(',\n')}\n${sql}`;
}
