import type { Position } from './ast.ts';
import { invalidSql } from './parse.ts';

/** Request fields that are not parameters: what each carries instead. */
const RESERVED: Record<string, string> = { api_key: "the caller's key", sql: "a sandboxed caller's query" };

/** A query parameter's name, refused when a request field of that name carries something else. */
export function parameterName(name: string, at?: Position): string {
  const carries = RESERVED[name.toLowerCase()];
  if (carries) throw invalidSql(`query parameter @${name} is reserved: a request's ${name.toLowerCase()} is ${carries}; choose another name`, at);
  return name;
}
