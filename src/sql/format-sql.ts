/**
 * BigQuery's FORMAT as SQL, for every engine: the pattern is parsed once (functions/format-string.ts)
 * and each piece is printed by the type the analyzer resolved for its value, with BigQuery's
 * (absl's) rules for flags, width and precision, from a few primitives each engine supplies
 * (FormatDialect). A value a specifier formats as a number or string makes the result NULL when
 * it is NULL; %t and %T print NULL.
 */

import type { SqlType } from './catalog.ts';
import { arg, type CallParts } from './emitters.ts';
import { parseFormat, type Count, type FormatSpec } from './functions/format-string.ts';
import type * as ir from './ir.ts';
import { invalidSql } from './parse.ts';

/** What an engine provides for FORMAT: SQL text for each operation on already printed values. */
export interface FormatDialect {
  /** A string literal. */
  literal(text: string): string;
  /** Code points in a string. */
  length(value: string): string;
  /** `value` padded on the left (right) with `fill` to `width` code points; never shortened. */
  padLeft(value: string, width: string, fill: string): string;
  padRight(value: string, width: string, fill: string): string;
  /** The first `count` code points. */
  prefix(value: string, count: string): string;
  reverse(value: string): string;
  /** Every match of an RE2 pattern replaced (\1 names a group). */
  replaceAll(value: string, pattern: string, replacement: string): string;
  upper(value: string): string;
  /** The digits of an INT64's magnitude in base 10, 8 or 16 (lower case), exact for the smallest INT64 too. */
  magnitudeDigits(value: string, base: 10 | 8 | 16): string;
  /** printf of a finite non-negative FLOAT64 with one of %f %e %g, `precision` an SQL integer (`#` for the alternate form). */
  printf(conversion: 'f' | 'e' | 'g', precision: string, value: string, alternate: boolean): string;
  /** A NUMERIC or BIGNUMERIC's magnitude with exactly `precision` (a number) digits after the point, rounded half away from zero. */
  decimalFixed(value: string, precision: number): string;
  /** A FLOAT64 expression of any value (for NUMERIC under %e and %g). */
  toDouble(value: string): string;
  isNan(value: string): string;
  isInfinite(value: string): string;
  /** %t (or %T when `literal`) of a value of `type`: never NULL ('NULL' for NULL). */
  valueText(value: string, type: SqlType, literal: boolean, call: CallParts): string;
  /** A JSON value's text as BigQuery writes it (TO_JSON_STRING), compact or one value a line (%P). */
  jsonText(value: string, pretty: boolean, call: CallParts): string;
}

/**
 * An RE2 pattern for text that ends in a \xNN escape of %T: a control character other than \t,
 * \n and \r, then hex digits, which ZetaSQL escapes too after one (as a C reader would read on).
 */
export const AFTER_HEX_ESCAPE = '[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f][0-9a-fA-F]*$';

const JSON_TYPE: SqlType = { kind: 'scalar', name: 'JSON' };

/**
 * FORMAT's call made a call of TO_JSON_STRING on `value` (printed SQL), for an engine to print
 * FORMAT's JSON with its TO_JSON_STRING rendering.
 */
export function jsonTextCall(call: CallParts, value: string, pretty: boolean): CallParts {
  const json: ir.Expr = { kind: 'ref', path: ['json'] };
  return {
    ...call,
    args: pretty ? [value, 'TRUE'] : [value],
    raw: pretty ? [json, { kind: 'bool', value: true }] : [json],
    named: {},
    rawNamed: {},
    types: pretty ? [JSON_TYPE, { kind: 'scalar', name: 'BOOL' }] : [JSON_TYPE],
    result: { kind: 'scalar', name: 'STRING' },
  };
}

/** What a value of a type the analyzer does not know is printed as, by its specifier. */
const SPEC_TYPES_FOR_UNKNOWN: Partial<Record<FormatSpec['conversion'], SqlType>> = {
  d: { kind: 'scalar', name: 'INT64' },
  i: { kind: 'scalar', name: 'INT64' },
  o: { kind: 'scalar', name: 'INT64' },
  x: { kind: 'scalar', name: 'INT64' },
  X: { kind: 'scalar', name: 'INT64' },
  s: { kind: 'scalar', name: 'STRING' },
};

/** FORMAT(pattern, values…) in an engine's SQL. The analyzer checked the pattern against the values. */
export function formatSql(call: CallParts, dialect: FormatDialect): string {
  const pattern = call.raw[0];
  if (pattern?.kind !== 'string') return 'NULL';
  const parsed = parseFormat(pattern.value);
  if ('error' in parsed) throw invalidSql(parsed.error);
  const parts = parsed.pieces.map((piece) => (piece.kind === 'text' ? dialect.literal(piece.text) : new SpecPrinter(call, piece.spec, dialect).print()));
  if (parts.length === 0) return dialect.literal('');
  return parts.length === 1 ? parts[0]! : `(${parts.join(' || ')})`;
}

class SpecPrinter {
  private readonly value: string;
  private readonly type: SqlType;
  private readonly isNull: boolean;

  constructor(
    private readonly call: CallParts,
    private readonly spec: FormatSpec,
    private readonly dialect: FormatDialect,
  ) {
    this.value = arg(call, spec.argument + 1);
    this.isNull = call.raw[spec.argument + 1]?.kind === 'null';
    const resolved = call.types[spec.argument + 1];
    this.type = resolved && resolved.kind !== 'unknown' ? resolved : (SPEC_TYPES_FOR_UNKNOWN[spec.conversion] ?? { kind: 'scalar', name: 'STRING' });
  }

  /** The piece; NULL when a width or precision taken from the arguments is NULL. */
  print(): string {
    const counts = [this.spec.width, this.spec.precision].flatMap((count) => (count?.kind === 'argument' ? [`${arg(this.call, count.argument + 1)} IS NULL`] : []));
    const piece = this.piece();
    return counts.length === 0 ? piece : `(CASE WHEN ${counts.join(' OR ')} THEN NULL ELSE ${piece} END)`;
  }

  private piece(): string {
    const { conversion } = this.spec;
    switch (conversion) {
      case 's':
        return this.text(this.value);
      case 't':
      case 'T':
        return this.text(this.isNull ? this.dialect.literal('NULL') : this.dialect.valueText(this.value, this.type, conversion === 'T', this.call));
      case 'p':
      case 'P':
        // JSON only (the analyzer checked); a NULL JSON makes the result NULL here (%t prints it).
        return this.text(`(CASE WHEN ${this.value} IS NULL THEN NULL ELSE ${this.dialect.jsonText(this.value, conversion === 'P', this.call)} END)`);
      case 'd':
      case 'i':
      case 'o':
      case 'x':
      case 'X':
        return this.integer(conversion);
      case 'u':
        throw invalidSql('FORMAT %u takes an unsigned integer, which BigQuery does not have');
      default:
        return this.real(conversion);
    }
  }

  /** A width or precision: a literal, or the SQL of the argument `*` took. */
  private count(count: Count | undefined): string | undefined {
    if (count === undefined) return undefined;
    return count.kind === 'fixed' ? String(count.value) : `CAST(${arg(this.call, count.argument + 1)} AS BIGINT)`;
  }

  /**
   * Padding to the width: spaces on the left, on the right with `-` (or a negative `*` width),
   * zeros between `lead` (sign and prefix) and `body` with `0` where numbers take them.
   */
  private pad(lead: string, body: string, zeros: boolean | string): string {
    const whole = lead === "''" ? body : `${lead} || ${body}`;
    const width = this.count(this.spec.width);
    if (width === undefined) return `(${whole})`;
    const d = this.dialect;
    const left = this.spec.flags.left;
    const fits = (target: string) => `greatest(${target}, ${d.length(`(${whole})`)})`;
    const spaced = (target: string, toLeft: boolean) => (toLeft ? d.padRight(`(${whole})`, fits(target), "' '") : d.padLeft(`(${whole})`, fits(target), "' '"));
    const zeroPadded = (target: string) => `(${lead} || ${d.padLeft(body, `greatest(${target} - ${d.length(lead)}, ${d.length(body)})`, "'0'")})`;
    const fixed = this.spec.width?.kind === 'fixed';
    const plain = (target: string) => {
      if (left || zeros === false) return spaced(target, left);
      if (zeros === true) return zeroPadded(target);
      return `(CASE WHEN ${zeros} THEN ${zeroPadded(target)} ELSE ${spaced(target, false)} END)`;
    };
    if (fixed) return plain(width);
    // A negative width from `*` left-justifies within its absolute value.
    return `(CASE WHEN ${width} < 0 THEN ${spaced(`(- ${width})`, true)} ELSE ${plain(width)} END)`;
  }

  /** %s, %t, %T, %p: at most `precision` code points, padded with spaces. */
  private text(text: string): string {
    const d = this.dialect;
    const precision = this.count(this.spec.precision);
    let body = text;
    if (precision !== undefined) {
      const cut = d.prefix(text, precision);
      body = this.spec.precision?.kind === 'fixed' ? cut : `(CASE WHEN ${precision} < 0 THEN ${text} ELSE ${cut} END)`;
    }
    return this.pad("''", body, false);
  }

  /** The sign BigQuery writes before a number: '-' for a negative one, else '+' or ' ' by flag. */
  private sign(negative: string): string {
    const { plus, space } = this.spec.flags;
    const positive = plus ? "'+'" : space ? "' '" : "''";
    return `(CASE WHEN ${negative} THEN '-' ELSE ${positive} END)`;
  }

  /** Digits grouped from the right in `size`s with `separator` (the `'` flag). */
  private group(digits: string, size: number, separator: string): string {
    const d = this.dialect;
    const reversed = d.replaceAll(d.reverse(digits), `([0-9a-fA-F]{${size}})`, `\\1${separator}`);
    return d.reverse(d.replaceAll(reversed, `\\${separator}$`, ''));
  }

  private integer(conversion: 'd' | 'i' | 'o' | 'x' | 'X'): string {
    const d = this.dialect;
    const { flags } = this.spec;
    const base = conversion === 'o' ? 8 : conversion === 'x' || conversion === 'X' ? 16 : 10;
    let digits = d.magnitudeDigits(this.value, base);
    if (conversion === 'X') digits = d.upper(digits);
    const precision = this.count(this.spec.precision);
    // BigQuery prints o, x, X and grouped decimals itself: "0" at least, and the # prefix even for 0;
    // plain %d and %i follow printf, where a precision of 0 prints nothing for 0.
    const custom = base !== 10 || flags.grouping;
    if (precision !== undefined) {
      const padded = d.padLeft(digits, `greatest(${precision}, ${d.length(digits)})`, "'0'");
      const negativePrecision = this.spec.precision?.kind === 'argument' ? `${precision} < 0` : 'FALSE';
      digits = custom ? padded : `(CASE WHEN ${negativePrecision} THEN ${digits} WHEN ${precision} = 0 AND ${this.value} = 0 THEN '' ELSE ${padded} END)`;
    }
    if (flags.grouping) digits = this.group(digits, base === 10 ? 3 : 4, base === 16 ? ':' : ',');
    let prefix = "''";
    if (flags.alternate && base === 16) prefix = conversion === 'x' ? "'0x'" : "'0X'";
    // %#o starts with a 0 unless a precision already puts zeros first.
    if (flags.alternate && base === 8) prefix = precision === undefined ? "'0'" : `(CASE WHEN ${precision} > ${d.length(d.magnitudeDigits(this.value, 8))} THEN '' ELSE '0' END)`;
    const lead = prefix === "''" ? this.sign(`${this.value} < 0`) : `${this.sign(`${this.value} < 0`)} || ${prefix}`;
    // printf ignores 0 when a precision is given; BigQuery's own printing (o, x, grouping) does not.
    const zeros = flags.zero && (custom || precision === undefined);
    return this.pad(lead, `(${digits})`, zeros);
  }

  private real(conversion: 'f' | 'F' | 'e' | 'E' | 'g' | 'G'): string {
    const d = this.dialect;
    const { flags } = this.spec;
    const lower = conversion.toLowerCase() as 'f' | 'e' | 'g';
    const exact = this.type.kind === 'scalar' && (this.type.name === 'NUMERIC' || this.type.name === 'BIGNUMERIC');
    const precisionSql = this.count(this.spec.precision);
    // A negative precision from `*` means the default, 6.
    const precision = precisionSql === undefined ? '6' : this.spec.precision?.kind === 'argument' ? `(CASE WHEN ${precisionSql} < 0 THEN 6 ELSE ${precisionSql} END)` : precisionSql;
    let body: string;
    let finite = 'TRUE';
    if (exact && lower === 'f') {
      if (this.spec.precision?.kind === 'argument') throw invalidSql('FORMAT %f of a NUMERIC with a precision from * is not supported');
      body = d.decimalFixed(this.value, Number(precision));
      if (flags.alternate && precision === '0') body = `(${body} || '.')`;
    } else {
      const value = exact ? d.toDouble(this.value) : this.value;
      const magnitude = `(abs(${value}) + 0.0)`;
      let printed = d.printf(lower, precision, magnitude, flags.alternate);
      // %#.0e has its point even where printf drops it.
      if (flags.alternate && lower === 'e') printed = d.replaceAll(printed, '^([0-9]+)e', '\\1.e');
      finite = `NOT (${d.isNan(value)} OR ${d.isInfinite(value)})`;
      body = `(CASE WHEN ${d.isNan(value)} THEN 'nan' WHEN ${d.isInfinite(value)} THEN 'inf' ELSE ${printed} END)`;
    }
    if (flags.grouping) {
      // Only the digits before the point (or the exponent) are grouped.
      const whole = d.replaceAll(body, '^([0-9]*).*$', '\\1');
      const rest = d.replaceAll(body, '^[0-9]*', '');
      body = `(CASE WHEN ${d.length(whole)} > 3 THEN ${this.group(whole, 3, ',')} || ${rest} ELSE ${body} END)`;
    }
    if (conversion !== lower) body = d.upper(body);
    const lead = this.sign(`${this.value} < 0`);
    return this.pad(lead, body, exact ? flags.zero : flags.zero ? finite : false);
  }
}
