/** Parsing SQL (BigQuery's grammar, or a front end's) with datafusion-sqlparser-rs (WebAssembly), and the translator's error. */

import { setFlagsFromString } from 'node:v8';
import { BigQueryDialect, Parser, ParserError, init } from '@guanmingchiu/sqlparser-ts';
import { AppError } from '../errors.ts';
import type { AstQuery, AstStatement, Position } from './ast.ts';
import { rewriteBeforeParse } from './preparse.ts';
import { restorePositions, rewriteWithNotes, writtenColumn, type SyntaxNotes } from './syntax-notes.ts';

// The WebAssembly module must be loaded before the first parse; doing it at import keeps
// `translate` synchronous for callers.
//
// It is compiled with Liftoff (V8's baseline wasm compiler) only. By default V8 recompiles the
// parser's hot functions with TurboFan after the first parses, and for this 3.5 MB module that
// kept 30-40 MB resident for good after provisioning's three translations (idle RSS of a fresh
// start 209 -> 169 MB) and 60-80 MB after a few thousand. The price, measured on the built-in
// endpoints: a warm translation takes 1.08 ms instead of 0.75 ms, and the first one 11 ms
// instead of 23-43 ms (no tier-up compiles); endpoint translations are cached besides.
// The tier is fixed when a module is compiled, so the flag is set for this compilation only and
// restored for any other WebAssembly in the process.
const liftoffAlready = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(' ')].includes('--liftoff-only');
setFlagsFromString('--liftoff-only');
try {
  await init();
} finally {
  if (!liftoffAlready) setFlagsFromString('--no-liftoff-only');
}

/** A query the translator refuses: 400 invalid_sql, with the position when known. */
export function invalidSql(message: string, position?: Position): AppError {
  const where = position ? ` (line ${position.line}, column ${position.column})` : '';
  return new AppError(400, 'invalid_sql', `${message}${where}`, position ? { line: position.line, column: position.column } : undefined);
}

const bigQueryParser = () => new Parser(new BigQueryDialect()).withOptions({ trailingCommas: true });

const notesOfQuery = new WeakMap<AstQuery, SyntaxNotes>();

/** What the text said that the parsed tree does not (syntax-notes.ts), for a query parseQuery parsed. */
export function syntaxNotes(ast: AstQuery): SyntaxNotes | undefined {
  return notesOfQuery.get(ast);
}

/** Parse exactly one BigQuery query statement; anything else is refused with the reason. */
export function parseQuery(sql: string): AstQuery {
  const { sql: rewritten, notes } = rewriteWithNotes(rewriteBeforeParse(sql));
  let ast: AstQuery;
  try {
    ast = parseOneQuery(rewritten, bigQueryParser);
  } catch (error) {
    const { line, column } = (error instanceof AppError ? error.details : undefined) ?? {};
    if (typeof line !== 'number' || typeof column !== 'number' || notes.insertions.length === 0) throw error;
    const message = (error as AppError).message.replace(/ \(line \d+, column \d+\)$/, '');
    throw invalidSql(message, { line, column: writtenColumn({ line, column }, notes) });
  }
  restorePositions(ast, notes);
  notesOfQuery.set(ast, notes);
  return ast;
}

/** Parse exactly one query statement with `parser` (a front end's grammar); anything else is refused. */
export function parseOneQuery(sql: string, parser: () => Parser): AstQuery {
  const statements = parseStatements(sql, parser);
  if (statements.length === 0) throw invalidSql('the SQL is empty');
  if (statements.length > 1) throw invalidSql(`only one statement is allowed, found ${statements.length}`);
  const statement = statements[0] as AstStatement;
  if (!('Query' in statement)) {
    throw invalidSql(`only SELECT queries are allowed, found ${statementKind(statement)}`);
  }
  return statement.Query as AstQuery;
}

function parseStatements(sql: string, parser: () => Parser): AstStatement[] {
  try {
    return parser().parse(sql) as AstStatement[];
  } catch (error) {
    if (!(error instanceof ParserError)) throw error;
    throw parserErrorToInvalidSql(error);
  }
}

function parserErrorToInvalidSql(error: ParserError): AppError {
  const raw = error.message.replace(/^sql parser error:\s*/i, '');
  const position = error.location ?? positionInMessage(raw);
  const message = raw.replace(/\s*at Line: \d+, Column: \d+\s*$/, '');
  // Statements the BigQuery grammar does not know (INSTALL, ATTACH, EXPORT…) fail to parse;
  // say plainly that only queries are accepted rather than echo the grammar's expectation.
  const unknownStatement = /^Expected: an SQL statement, found: (\S+)/.exec(message);
  if (unknownStatement) {
    return invalidSql(`only SELECT queries are allowed, found ${unknownStatement[1]?.toUpperCase()}`, position);
  }
  // The grammar's list of the pipe operators it reads, then one it does not (WITH, ASSERT, LOG…).
  const pipeOperator = /^Expected: one of SELECT or EXTEND or SET .*, found: (\S+)/.exec(message);
  if (pipeOperator) return invalidSql(`the pipe operator ${pipeOperator[1]?.toUpperCase()} is not supported`, position);
  return invalidSql(`SQL syntax error: ${message}`, position);
}

function positionInMessage(message: string): Position | undefined {
  const match = /Line: (\d+), Column: (\d+)/.exec(message);
  return match ? { line: Number(match[1]), column: Number(match[2]) } : undefined;
}

function statementKind(statement: AstStatement): string {
  const key = Object.keys(statement)[0] ?? 'unknown';
  // CreateTable → CREATE TABLE
  return key.replace(/([a-z])([A-Z])/g, '$1 $2').toUpperCase();
}
