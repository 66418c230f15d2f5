import type { FieldType, RecordFields, ScalarType } from '../types.ts';

/**
 * Engine-neutral field types as ClickHouse column types. Records are arrays of named tuples (the
 * BigQuery repeated record), scalars are Nullable so a missing field reads as NULL, lists are
 * arrays of nullable scalars. ClickHouse has no NULL array: a missing list or record reads as [].
 */

const SCALAR_SQL = {
  bool: 'Bool',
  int: 'Int64',
  float: 'Float64',
  string: 'String',
  timestamp: "DateTime64(6, 'UTC')",
} as const;

export const quoteIdent = (name: string) => `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;

export function clickhouseType(type: FieldType): string {
  switch (type.kind) {
    case 'record':
      return `Array(Tuple(${[...type.fields].map(([name, field]) => `${quoteIdent(name)} ${clickhouseType(field)}`).join(', ')}))`;
    case 'list':
      return `Array(Nullable(${SCALAR_SQL[type.element.kind]}))`;
    default:
      return `Nullable(${SCALAR_SQL[type.kind]})`;
  }
}

/** A ClickHouse type name parsed into a tree, for reading results and stored columns back. */
export interface TypeNode {
  name: string;
  /** Type arguments: nested types (with element names for named tuples) or literal parameters. */
  args: Array<{ name?: string; type: TypeNode }>;
}

export function parseType(text: string): TypeNode {
  const parser = new TypeParser(text);
  const node = parser.type();
  parser.skipSpace();
  if (!parser.done()) throw new Error(`unexpected text in ClickHouse type ${text}`);
  return node;
}

class TypeParser {
  private index = 0;
  constructor(private readonly text: string) {}

  done(): boolean {
    return this.index >= this.text.length;
  }

  skipSpace(): void {
    while (/\s/.test(this.text[this.index] ?? '')) this.index++;
  }

  type(): TypeNode {
    this.skipSpace();
    const literal = this.literal();
    if (literal !== undefined) return { name: literal, args: [] };
    const name = this.word();
    this.skipSpace();
    const args: TypeNode['args'] = [];
    if (this.text[this.index] === '(') {
      this.index++;
      for (;;) {
        this.skipSpace();
        if (this.text[this.index] === ')') break;
        args.push(this.argument(name));
        this.skipSpace();
        if (this.text[this.index] === ',') this.index++;
        else if (this.text[this.index] !== ')') throw new Error(`bad ClickHouse type ${this.text}`);
      }
      this.index++;
    }
    return { name, args };
  }

  /** A named tuple element is `name Type`; anything else is a type or a literal. */
  private argument(parent: string): { name?: string; type: TypeNode } {
    if (parent === 'Tuple' || parent === 'Nested') {
      const start = this.index;
      const quoted = this.text[this.index] === '`' ? this.quotedName() : undefined;
      const name = quoted ?? this.word();
      this.skipSpace();
      const next = this.text[this.index];
      if (name && next !== ',' && next !== ')' && next !== '(') return { name, type: this.type() };
      this.index = start;
    }
    return { type: this.type() };
  }

  private quotedName(): string {
    let name = '';
    this.index++;
    while (this.index < this.text.length && this.text[this.index] !== '`') {
      if (this.text[this.index] === '\\') this.index++;
      name += this.text[this.index++];
    }
    this.index++;
    return name;
  }

  private word(): string {
    const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.text.slice(this.index));
    if (!match) throw new Error(`bad ClickHouse type ${this.text} at ${this.index}`);
    this.index += match[0].length;
    return match[0];
  }

  private literal(): string | undefined {
    const rest = this.text.slice(this.index);
    const match = /^('(?:[^'\\]|\\.)*'|-?\d+(?:\.\d+)?)/.exec(rest);
    if (!match) return undefined;
    this.index += match[0].length;
    return match[0];
  }
}

/** Strip Nullable and LowCardinality wrappers. */
export function unwrap(node: TypeNode): TypeNode {
  let current = node;
  while ((current.name === 'Nullable' || current.name === 'LowCardinality') && current.args[0]) current = current.args[0].type;
  return current;
}

function scalarFromNode(node: TypeNode): ScalarType {
  const type = unwrap(node);
  if (type.name === 'Bool') return { kind: 'bool' };
  if (/^U?Int\d+$/.test(type.name)) return { kind: 'int' };
  if (/^(Float\d+|Decimal\d*)$/.test(type.name)) return { kind: 'float' };
  if (type.name === 'DateTime64' || type.name === 'DateTime') return { kind: 'timestamp' };
  return { kind: 'string' };
}

/** Read a stored column type back into a field type (when opening existing tables). */
export function fieldTypeFromClickhouse(text: string): FieldType {
  return fieldTypeFromNode(parseType(text));
}

function fieldTypeFromNode(node: TypeNode): FieldType {
  const type = unwrap(node);
  if (type.name !== 'Array' || !type.args[0]) return scalarFromNode(type);
  const element = unwrap(type.args[0].type);
  if (element.name === 'Tuple') return { kind: 'record', fields: fieldsFromTuple(element) };
  return { kind: 'list', element: scalarFromNode(element) };
}

function fieldsFromTuple(tuple: TypeNode): RecordFields {
  return new Map(tuple.args.map((arg, index) => [arg.name ?? String(index + 1), fieldTypeFromNode(arg.type)]));
}
