/**
 * What the doc-examples harness needs to know of an example's BigQuery SQL without the translator:
 * its statements, the tables it reads, whether it orders its rows, which result columns BigQuery
 * types as JSON, BYTES or STRING (the printed table cannot tell), and whether it depends on the
 * default time zone. A small tokenizer and bracket-matching, not a parser: where it cannot tell,
 * it says so (`any`), and the comparison then assumes nothing.
 */

export interface Token {
  kind: 'space' | 'comment' | 'string' | 'ident' | 'quoted' | 'number' | 'punct';
  text: string;
  start: number;
  /** Strings: the prefix letters (`b`, `r`, `rb`), lower-case. */
  prefix?: string;
  /** Strings and quoted identifiers: the content without quotes (escapes left as written). */
  body?: string;
}

const PUNCT2 = new Set(['||', '<=', '>=', '<>', '!=', '=>', '->', '<<', '>>']);

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const start = i;
    const c = text[i]!;
    const rest = text.slice(i);
    let m: RegExpMatchArray | null;
    if ((m = rest.match(/^\s+/))) {
      tokens.push({ kind: 'space', text: m[0], start });
    } else if (rest.startsWith('--') || rest.startsWith('#')) {
      const end = text.indexOf('\n', i);
      tokens.push({ kind: 'comment', text: text.slice(i, end < 0 ? text.length : end), start });
    } else if (rest.startsWith('/*')) {
      const end = text.indexOf('*/', i + 2);
      tokens.push({ kind: 'comment', text: text.slice(i, end < 0 ? text.length : end + 2), start });
    } else if ((m = rest.match(/^([rRbB]{0,2})("""|'''|"|')/))) {
      const prefix = m[1]!.toLowerCase();
      const quote = m[2]!;
      const raw = prefix.includes('r');
      let j = i + m[0].length;
      while (j < text.length && !text.startsWith(quote, j)) j += !raw && text[j] === '\\' ? 2 : 1;
      const body = text.slice(i + m[0].length, j);
      j = Math.min(text.length, j + quote.length);
      tokens.push({ kind: 'string', text: text.slice(i, j), start, prefix, body });
    } else if (c === '`') {
      const end = text.indexOf('`', i + 1);
      const j = end < 0 ? text.length : end + 1;
      tokens.push({ kind: 'quoted', text: text.slice(i, j), start, body: text.slice(i + 1, j - 1) });
    } else if ((m = rest.match(/^(0[xX][0-9a-fA-F]+|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)/))) {
      tokens.push({ kind: 'number', text: m[0], start });
    } else if ((m = rest.match(/^[A-Za-z_][A-Za-z0-9_]*/))) {
      tokens.push({ kind: 'ident', text: m[0], start });
    } else {
      const two = text.slice(i, i + 2);
      tokens.push({ kind: 'punct', text: PUNCT2.has(two) ? two : c, start });
    }
    i = start + tokens[tokens.length - 1]!.text.length;
  }
  return tokens;
}

/** Tokens without spaces and comments. */
export const significant = (text: string): Token[] => tokenize(text).filter((t) => t.kind !== 'space' && t.kind !== 'comment');

const upper = (t: Token | undefined) => (t && t.kind === 'ident' ? t.text.toUpperCase() : '');
const isPunct = (t: Token | undefined, p: string) => t?.kind === 'punct' && t.text === p;

/** For each opening bracket its closing one, by index (unbalanced brackets close at the end). */
function matchBrackets(tokens: Token[]): Map<number, number> {
  const pairs = new Map<number, number>();
  const stack: number[] = [];
  tokens.forEach((t, i) => {
    if (t.kind !== 'punct') return;
    if (t.text === '(' || t.text === '[') stack.push(i);
    else if ((t.text === ')' || t.text === ']') && stack.length > 0) pairs.set(stack.pop()!, i);
  });
  for (const open of stack) pairs.set(open, tokens.length);
  return pairs;
}

/**
 * The statements of a text, split at `;` outside brackets, without empty ones. A comment on the
 * same line after the `;` stays with its statement (`SELECT …; -- Returns a SQL NULL`).
 */
export function splitStatements(text: string): string[] {
  const statements: string[] = [];
  let depth = 0;
  let from = 0;
  const tokens = tokenize(text);
  for (const [i, t] of tokens.entries()) {
    if (t.kind !== 'punct') continue;
    if (t.text === '(' || t.text === '[') depth++;
    else if (t.text === ')' || t.text === ']') depth = Math.max(0, depth - 1);
    else if (t.text === ';' && depth === 0) {
      const next = tokens[i + 1]?.kind === 'space' && !tokens[i + 1]!.text.includes('\n') ? tokens[i + 2] : tokens[i + 1];
      const trailing = next?.kind === 'comment' && next.text.startsWith('--') ? next : undefined;
      statements.push(text.slice(from, t.start) + (trailing ? ` ${trailing.text}` : ''));
      from = trailing ? trailing.start + trailing.text.length : t.start + 1;
    }
  }
  statements.push(text.slice(from));
  return statements.filter((s) => significant(s).length > 0).map((s) => s.trim());
}

/** Whether a statement is a query (SELECT, WITH, a parenthesized query), the kind an endpoint runs. */
export function isQuery(statement: string): boolean {
  const first = significant(statement).find((t) => !isPunct(t, '('));
  return ['SELECT', 'WITH', 'FROM'].includes(upper(first));
}

/** Query-level facts, in significant tokens. */
export class QueryText {
  readonly tokens: Token[];
  private readonly pairs: Map<number, number>;
  /** Index of each token's innermost enclosing opening bracket, -1 at the top. */
  private readonly parent: number[];

  constructor(readonly text: string) {
    this.tokens = significant(text);
    this.pairs = matchBrackets(this.tokens);
    const stack: number[] = [];
    this.parent = this.tokens.map((t, i) => {
      const here = stack.length > 0 ? stack[stack.length - 1]! : -1;
      if (isPunct(t, '(') || isPunct(t, '[')) stack.push(i);
      else if ((isPunct(t, ')') || isPunct(t, ']')) && stack.length > 0) {
        stack.pop();
        return stack.length > 0 ? stack[stack.length - 1]! : -1;
      }
      return here;
    });
  }

  private close(open: number): number {
    return this.pairs.get(open) ?? this.tokens.length;
  }

  /** Names the query defines in WITH clauses, at any depth, lower-case. */
  cteNames(): Set<string> {
    const names = new Set<string>();
    this.tokens.forEach((t, i) => {
      const next = this.tokens[i + 1];
      if ((t.kind === 'ident' || t.kind === 'quoted') && upper(next) === 'AS' && isPunct(this.tokens[i + 2], '(')) {
        const before = this.tokens[i - 1];
        if (upper(before) === 'WITH' || upper(before) === 'RECURSIVE' || isPunct(before, ',')) names.add(identName(t));
      }
    });
    return names;
  }

  /** Aliases the query gives to FROM items and expressions (`AS x`, and `t x` after a table), lower-case. */
  private aliases(): Set<string> {
    const names = new Set<string>();
    this.tokens.forEach((t, i) => {
      if (upper(t) === 'AS' && (this.tokens[i + 1]?.kind === 'ident' || this.tokens[i + 1]?.kind === 'quoted')) names.add(identName(this.tokens[i + 1]!));
    });
    for (const item of this.fromItems()) if (item.alias) names.add(item.alias);
    return names;
  }

  /** FROM items naming a table or path (not UNNEST, not a subquery): the dotted name and its alias. */
  private fromItems(): Array<{ name: string[]; alias?: string }> {
    const items: Array<{ name: string[]; alias?: string }> = [];
    const starts: number[] = [];
    this.tokens.forEach((t, i) => {
      const word = upper(t);
      // `EXTRACT(part FROM x)` reads no table.
      const inExtract = this.parent[i]! >= 0 && upper(this.tokens[this.parent[i]! - 1]) === 'EXTRACT';
      if ((word === 'FROM' && !inExtract) || word === 'JOIN') starts.push(i + 1);
      else if (isPunct(t, ',') && this.inFromClause(i)) starts.push(i + 1);
    });
    for (const start of starts) {
      const name: string[] = [];
      let i = start;
      while (this.tokens[i] && (this.tokens[i]!.kind === 'ident' || this.tokens[i]!.kind === 'quoted')) {
        name.push(...identName(this.tokens[i]!).split('.'));
        if (!isPunct(this.tokens[i + 1], '.')) break;
        i += 2;
      }
      if (name.length === 0 || isPunct(this.tokens[i + 1], '(') || KEYWORDS.has(name[0]!.toUpperCase())) continue;
      const after = this.tokens[i + 1];
      const aliasToken = upper(after) === 'AS' ? this.tokens[i + 2] : after;
      const alias = aliasToken && (aliasToken.kind === 'ident' || aliasToken.kind === 'quoted') && !KEYWORDS.has(upper(aliasToken)) ? identName(aliasToken) : undefined;
      items.push({ name, alias });
    }
    return items;
  }

  /** Whether token i (a comma) separates FROM items: the last clause keyword at its depth is FROM or JOIN. */
  private inFromClause(i: number): boolean {
    const depth = this.parent[i];
    for (let j = i - 1; j >= 0 && j > (depth ?? -1); j--) {
      if (this.parent[j] !== depth) continue;
      const word = upper(this.tokens[j]);
      if (word === 'FROM' || word === 'JOIN') return true;
      if (CLAUSES.has(word) || word === 'SELECT') return false;
    }
    return false;
  }

  /** Tables the query reads that it does not define itself, lower-case dotted names. */
  tablesRead(): string[] {
    const ctes = this.cteNames();
    const aliases = this.aliases();
    const tables = new Set<string>();
    for (const item of this.fromItems()) {
      const first = item.name[0]!;
      if (item.name.length === 1 && ctes.has(first)) continue;
      // `FROM t, t.arr`: a path through an alias is an implicit UNNEST, not a table.
      if (item.name.length > 1 && (aliases.has(first) || ctes.has(first))) continue;
      tables.add(item.name.join('.'));
    }
    return [...tables];
  }

  /** Whether the outermost query orders its rows (an ORDER BY outside every bracket). */
  ordersRows(): boolean {
    return this.tokens.some((t, i) => upper(t) === 'ORDER' && upper(this.tokens[i + 1]) === 'BY' && this.parent[i] === -1);
  }

  /** Function names called anywhere (dotted names joined, `SAFE.` removed), upper-case. */
  functionsCalled(): Set<string> {
    const names = new Set<string>();
    this.tokens.forEach((t, i) => {
      if (t.kind !== 'ident' || !isPunct(this.tokens[i + 1], '(') || isPunct(this.tokens[i - 1], '.')) return;
      names.add(this.dottedNameEndingAt(i));
    });
    return names;
  }

  /** `NET.HOST` for the index of `HOST`; a `SAFE.` prefix is dropped. */
  private dottedNameEndingAt(i: number): string {
    const parts = [upper(this.tokens[i])];
    let j = i;
    while (isPunct(this.tokens[j - 1], '.') && this.tokens[j - 2]?.kind === 'ident') {
      parts.unshift(upper(this.tokens[j - 2]));
      j -= 2;
    }
    if (parts[0] === 'SAFE' && parts.length > 1) parts.shift();
    return parts.join('.');
  }

  /** Identifiers used anywhere, upper-case (for keywords such as type names). */
  words(): Set<string> {
    return new Set(this.tokens.filter((t) => t.kind === 'ident').map((t) => t.text.toUpperCase()));
  }

  // ---- result column types --------------------------------------------------------------------

  /**
   * What BigQuery's type of each result column is known to be, by position, as far as the
   * expressions tell; `byName` answers for columns a `*` brings.
   */
  columnHints(): { positional: Hint[] | undefined; byName: Map<string, Hint> } {
    const byName = new Map<string, Hint>();
    const selects: Array<Array<{ expr: [number, number]; alias?: string }>> = [];
    this.tokens.forEach((t, i) => {
      if (upper(t) === 'SELECT') selects.push(this.selectItems(i));
    });
    // Twice, so that a name refers to an expression hinted in the first round.
    for (let round = 0; round < 2; round++) {
      for (const items of selects) {
        for (const item of items) {
          const name = item.alias ?? this.implicitName(item.expr);
          if (!name) continue;
          const hint = this.hintOf(item.expr[0], item.expr[1], byName);
          const known = byName.get(name);
          byName.set(name, known && round === 0 && !sameHint(known, hint) ? ANY : hint);
        }
      }
      this.unnestAliases(byName);
    }
    const final = this.finalSelect();
    if (final === undefined) return { positional: undefined, byName };
    const items = this.selectItems(final);
    if (items.some((item) => this.isStar(item.expr))) return { positional: undefined, byName };
    return { positional: items.map((item) => this.hintOf(item.expr[0], item.expr[1], byName)), byName };
  }

  /** `UNNEST(x) AS e`: e's hint is x's element hint. */
  private unnestAliases(byName: Map<string, Hint>): void {
    this.tokens.forEach((t, i) => {
      if (upper(t) !== 'UNNEST' || !isPunct(this.tokens[i + 1], '(')) return;
      const close = this.close(i + 1);
      let j = close + 1;
      if (upper(this.tokens[j]) === 'AS') j++;
      const alias = this.tokens[j];
      if (!alias || (alias.kind !== 'ident' && alias.kind !== 'quoted') || KEYWORDS.has(upper(alias))) return;
      const hint = this.hintOf(i + 2, close, byName);
      byName.set(identName(alias), hint.kind === 'array' ? hint.element : ANY);
    });
  }

  /** The SELECT of the outermost query body (the first one outside every bracket). */
  private finalSelect(): number | undefined {
    const index = this.tokens.findIndex((t, i) => upper(t) === 'SELECT' && this.parent[i] === -1);
    if (index >= 0) return index;
    // `(SELECT …)` as the whole statement.
    const first = this.tokens.findIndex((t) => upper(t) === 'SELECT');
    return first >= 0 ? first : undefined;
  }

  /** The items of the select list that starts at `select`, as token ranges [from, to). */
  private selectItems(select: number): Array<{ expr: [number, number]; alias?: string }> {
    const depth = this.parent[select];
    let i = select + 1;
    while (['DISTINCT', 'ALL'].includes(upper(this.tokens[i])) || (upper(this.tokens[i]) === 'AS' && ['STRUCT', 'VALUE'].includes(upper(this.tokens[i + 1])))) {
      i += upper(this.tokens[i]) === 'AS' ? 2 : 1;
    }
    const items: Array<{ expr: [number, number]; alias?: string }> = [];
    let from = i;
    const end = (j: number) => {
      const t = this.tokens[j];
      if (!t) return true;
      if (this.parent[j] !== depth) return isPunct(t, ')') || isPunct(t, ']');
      return CLAUSES.has(upper(t)) || upper(t) === 'FROM' || isPunct(t, ';') || isPunct(t, ')');
    };
    for (; ; i++) {
      const t = this.tokens[i];
      if ((isPunct(t, '(') || isPunct(t, '[')) && this.pairs.has(i)) {
        i = this.close(i);
        continue;
      }
      if (end(i) || (isPunct(t, ',') && this.parent[i] === depth)) {
        if (i > from) items.push(this.aliased(from, i));
        if (end(i)) break;
        from = i + 1;
      }
    }
    return items;
  }

  private aliased(from: number, to: number): { expr: [number, number]; alias?: string } {
    const last = this.tokens[to - 1]!;
    if ((last.kind === 'ident' || last.kind === 'quoted') && to - from >= 2) {
      const before = this.tokens[to - 2]!;
      if (upper(before) === 'AS') return { expr: [from, to - 2], alias: identName(last) };
      // `expr alias`: an identifier after a complete expression (not after an operator or a dot).
      const operand = before.kind === 'string' || before.kind === 'number' || before.kind === 'quoted' || isPunct(before, ')') || isPunct(before, ']') || (before.kind === 'ident' && !KEYWORDS.has(upper(before)));
      if (operand && !KEYWORDS.has(upper(last)) && !isPunct(before, '.')) return { expr: [from, to - 1], alias: identName(last) };
    }
    return { expr: [from, to] };
  }

  /** A column reference's own name (`t.x` → x), BigQuery's implicit alias. */
  private implicitName([from, to]: [number, number]): string | undefined {
    const last = this.tokens[to - 1];
    if (!last || (last.kind !== 'ident' && last.kind !== 'quoted')) return undefined;
    for (let i = from; i < to; i++) {
      const t = this.tokens[i]!;
      const expected = (i - from) % 2 === 0 ? t.kind === 'ident' || t.kind === 'quoted' : isPunct(t, '.');
      if (!expected) return undefined;
    }
    return identName(last);
  }

  private isStar([from, to]: [number, number]): boolean {
    return isPunct(this.tokens[to - 1], '*') || (to - from >= 1 && isPunct(this.tokens[from], '*'));
  }

  /** The hint of the expression in tokens [from, to). */
  private hintOf(from: number, to: number, byName: Map<string, Hint>): Hint {
    if (from >= to) return ANY;
    const head = upper(this.tokens[from]);
    if ((head === 'ARRAY' || head === 'STRUCT') && isPunct(this.tokens[from + 1], '<')) {
      const closeAngle = this.closeAngle(from + 1);
      return head === 'ARRAY' && isPunct(this.tokens[closeAngle + 1], '[') ? this.hintOf(closeAngle + 1, to, byName) : ANY;
    }
    // A binary operator at this level decides: `||` keeps the left operand's type; others do not
    // make JSON, BYTES or STRING except through their operands, which we do not guess.
    for (let i = from; i < to; i++) {
      const t = this.tokens[i]!;
      if ((isPunct(t, '(') || isPunct(t, '[')) && this.pairs.has(i)) {
        i = Math.min(this.close(i), to);
        continue;
      }
      if (i > from && (isPunct(t, '||'))) return this.hintOf(from, i, byName);
      if (i > from && ((t.kind === 'punct' && BINARY.has(t.text)) || LOGICAL.has(upper(t)))) return ANY;
    }
    const t = this.tokens[from]!;
    // Literals.
    if (t.kind === 'string') {
      if (to - from > 1) return this.postfix(from + 1, to, t.prefix?.includes('b') ? BYTES : STRING);
      return t.prefix?.includes('b') ? BYTES : STRING;
    }
    if (t.kind === 'ident' && TYPED_LITERAL.has(upper(t)) && this.tokens[from + 1]?.kind === 'string') {
      const kind = upper(t) === 'JSON' ? JSON_HINT : upper(t) === 'TIMESTAMP' ? TIMESTAMP : ANY;
      return this.postfix(from + 2, to, kind);
    }
    if (isPunct(t, '(')) {
      const close = this.close(from);
      const inner = upper(this.tokens[from + 1]) === 'SELECT' ? this.subqueryHint(from + 1, byName) : this.hasTopLevelComma(from + 1, close) ? ANY : this.hintOf(from + 1, close, byName);
      return this.postfix(close + 1, to, inner);
    }
    if (isPunct(t, '[')) {
      const close = this.close(from);
      const first = this.firstItem(from + 1, close);
      return this.postfix(close + 1, to, arrayOf(first ? this.hintOf(first[0], first[1], byName) : ANY));
    }
    if (t.kind === 'ident' || t.kind === 'quoted') {
      // A (dotted) function call.
      let j = from;
      while (isPunct(this.tokens[j + 1], '.') && this.tokens[j + 2]?.kind === 'ident') j += 2;
      if (t.kind === 'ident' && isPunct(this.tokens[j + 1], '(')) {
        const close = this.close(j + 1);
        return this.postfix(close + 1, to, this.callHint(this.dottedNameEndingAt(j), j + 2, close, byName));
      }
      if (upper(t) === 'CASE') {
        const then = this.tokens.findIndex((x, i) => i > from && i < to && upper(x) === 'THEN' && this.parent[i] === this.parent[from]);
        if (then < 0) return ANY;
        const stop = this.tokens.findIndex((x, i) => i > then && i < to && ['WHEN', 'ELSE', 'END'].includes(upper(x)) && this.parent[i] === this.parent[from]);
        return this.hintOf(then + 1, stop < 0 ? to : stop, byName);
      }
      // A column path: JSON stays JSON through field access; else the last name's hint.
      const path: string[] = [];
      let i = from;
      for (; i < to; i += 2) {
        const part = this.tokens[i]!;
        if (part.kind !== 'ident' && part.kind !== 'quoted') break;
        path.push(identName(part));
        if (!isPunct(this.tokens[i + 1], '.')) {
          i++;
          break;
        }
      }
      const jsonAt = path.findIndex((name) => byName.get(name)?.kind === 'json');
      const base = jsonAt >= 0 ? JSON_HINT : path.length > 0 ? (byName.get(path[path.length - 1]!) ?? ANY) : ANY;
      return this.postfix(i, to, base);
    }
    return ANY;
  }

  /** The `>` closing the type parameter list opened at `open` (`>>` closes two). */
  private closeAngle(open: number): number {
    let depth = 0;
    for (let i = open; i < this.tokens.length; i++) {
      const t = this.tokens[i]!;
      if (isPunct(t, '<')) depth++;
      else if (isPunct(t, '>')) depth--;
      else if (isPunct(t, '>>')) depth -= 2;
      if (depth <= 0) return i;
    }
    return this.tokens.length;
  }

  /**
   * Whether the aggregate whose arguments are tokens [from, to) fixes its output's order: an
   * ORDER BY among its arguments, or a window with ORDER BY.
   */
  private aggregateOrdered(from: number, to: number): boolean {
    if (this.tokens.some((t, i) => i >= from && i < to && upper(t) === 'ORDER' && this.parent[i] === from - 1)) return true;
    if (upper(this.tokens[to + 1]) !== 'OVER' || !isPunct(this.tokens[to + 2], '(')) return false;
    const close = this.close(to + 2);
    return this.tokens.some((t, i) => i > to + 2 && i < close && upper(t) === 'ORDER');
  }

  /** An aggregate that keeps some of its inputs (LIMIT) without ordering them: its result is any of several. */
  limitsUnordered(): string | undefined {
    for (let i = 0; i < this.tokens.length; i++) {
      const name = upper(this.tokens[i]);
      if (!['ARRAY_AGG', 'ARRAY_CONCAT_AGG', 'STRING_AGG'].includes(name) || !isPunct(this.tokens[i + 1], '(')) continue;
      const close = this.close(i + 1);
      const limited = this.tokens.some((t, k) => k > i + 1 && k < close && upper(t) === 'LIMIT' && this.parent[k] === i + 1);
      if (limited && !this.aggregateOrdered(i + 2, close)) return `${name} with LIMIT and no ORDER BY`;
    }
    return undefined;
  }

  /** Subscripts and field access after a value of hint `base`, in tokens [from, to). */
  private postfix(from: number, to: number, base: Hint): Hint {
    let hint = base;
    for (let i = from; i < to; i++) {
      const t = this.tokens[i]!;
      if (isPunct(t, '[')) {
        hint = hint.kind === 'json' ? JSON_HINT : hint.kind === 'array' ? hint.element : ANY;
        i = this.close(i);
      } else if (isPunct(t, '.')) {
        hint = hint.kind === 'json' ? JSON_HINT : ANY;
        i++;
      } else {
        return ANY;
      }
    }
    return hint;
  }

  private subqueryHint(select: number, byName: Map<string, Hint>): Hint {
    const items = this.selectItems(select);
    return items.length === 1 ? this.hintOf(items[0]!.expr[0], items[0]!.expr[1], byName) : ANY;
  }

  private hasTopLevelComma(from: number, to: number): boolean {
    for (let i = from; i < to; i++) {
      if ((isPunct(this.tokens[i], '(') || isPunct(this.tokens[i], '[')) && this.pairs.has(i)) i = this.close(i);
      else if (isPunct(this.tokens[i], ',')) return true;
    }
    return false;
  }

  /** The first comma-separated item in [from, to). */
  private firstItem(from: number, to: number): [number, number] | undefined {
    for (let i = from; i < to; i++) {
      if ((isPunct(this.tokens[i], '(') || isPunct(this.tokens[i], '[')) && this.pairs.has(i)) i = this.close(i);
      else if (isPunct(this.tokens[i], ',')) return i > from ? [from, i] : undefined;
    }
    return to > from ? [from, to] : undefined;
  }

  private args(from: number, to: number): Array<[number, number]> {
    const args: Array<[number, number]> = [];
    let start = from;
    for (let i = from; i <= to; i++) {
      if (i < to && (isPunct(this.tokens[i], '(') || isPunct(this.tokens[i], '[')) && this.pairs.has(i)) {
        i = this.close(i);
        continue;
      }
      if (i === to || isPunct(this.tokens[i], ',')) {
        if (i > start) args.push([start, i]);
        start = i + 1;
      }
    }
    return args;
  }

  private callHint(name: string, from: number, to: number, byName: Map<string, Hint>): Hint {
    const args = this.args(from, to);
    const argHint = (n: number) => (args[n] ? this.hintOf(args[n]![0], args[n]![1], byName) : ANY);
    if (name === 'CAST' || name === 'SAFE_CAST') {
      const as = this.tokens.findIndex((t, i) => i >= from && i < to && upper(t) === 'AS' && this.parent[i] === from - 1);
      const type = upper(this.tokens[as + 1]);
      if (as < 0) return ANY;
      if (type === 'BYTES') return BYTES;
      if (type === 'JSON') return JSON_HINT;
      if (type === 'STRING') return STRING;
      if (type === 'TIMESTAMP') return TIMESTAMP;
      return ANY;
    }
    if (name === 'ARRAY' && upper(this.tokens[from]) === 'SELECT') {
      // A subquery's rows have no order unless it orders them.
      const ordered = this.tokens.some((t, i) => i > from && i < to && upper(t) === 'ORDER' && this.parent[i] === from - 1);
      return arrayOf(this.subqueryHint(from, byName), !ordered);
    }
    if (JSON_RESULT.has(name)) return JSON_HINT;
    if (BYTES_RESULT.has(name)) return BYTES;
    if (name === 'FORMAT') return { kind: 'string', nullText: true };
    if (STRING_RESULT.has(name)) return STRING;
    if (TIMESTAMP_RESULT.has(name)) return TIMESTAMP;
    if (STRING_ARRAY_RESULT.has(name)) return arrayOf(STRING);
    if (name === 'JSON_FLATTEN') return arrayOf(JSON_HINT);
    if (name === 'JSON_QUERY' || name === 'JSON_EXTRACT') return argHint(0).kind === 'json' ? JSON_HINT : STRING;
    if (name === 'JSON_QUERY_ARRAY' || name === 'JSON_EXTRACT_ARRAY') return arrayOf(argHint(0).kind === 'json' ? JSON_HINT : STRING);
    if (name === 'IF') return argHint(1);
    if (SAME_AS_FIRST.has(name)) return argHint(0);
    if (ARRAY_OF_FIRST.has(name)) return arrayOf(argHint(0), UNORDERED_AGGREGATES.has(name) && !this.aggregateOrdered(from, to));
    if (name === 'ARRAY_CONCAT_AGG') {
      const first = argHint(0);
      return first.kind === 'array' ? arrayOf(first.element, !this.aggregateOrdered(from, to)) : ANY;
    }
    if (ELEMENT_OF_FIRST.has(name)) {
      const first = argHint(0);
      return first.kind === 'array' ? first.element : ANY;
    }
    if (name === 'STRING_AGG') {
      if (argHint(0).kind === 'bytes') return BYTES;
      if (this.aggregateOrdered(from, to)) return STRING;
      const delimiter = args[1] && args[1][1] - args[1][0] === 1 ? this.tokens[args[1][0]]! : undefined;
      if (args[1] && delimiter?.kind !== 'string') return STRING;
      return { kind: 'string', unorderedParts: delimiter ? unescapeString(delimiter) : ',' };
    }
    if (name === 'ARRAY_TO_STRING') {
      const first = argHint(0);
      return first.kind === 'array' && first.element.kind === 'bytes' ? BYTES : STRING;
    }
    return ANY;
  }

  // ---- time zones -----------------------------------------------------------------------------

  /**
   * Why the result can depend on the default time zone (BigQuery's is UTC; ZetaSQL's pages were
   * printed with America/Los_Angeles), or undefined. Syntactic: a TIMESTAMP made from a civil time
   * with no zone, or a TIMESTAMP turned into a civil time with no zone given.
   */
  defaultZoneUse(): string | undefined {
    const { byName } = this.columnHints();
    for (let i = 0; i < this.tokens.length; i++) {
      const t = this.tokens[i]!;
      const word = upper(t);
      const next = this.tokens[i + 1];
      if (word === 'TIMESTAMP' && next?.kind === 'string' && !isPunct(this.tokens[i - 1], '.') && !hasZone(next.body ?? '')) {
        return `TIMESTAMP literal without a zone (${next.text})`;
      }
      if (t.kind !== 'ident' || !isPunct(next, '(')) continue;
      const close = this.close(i + 1);
      const args = this.args(i + 2, close);
      const argText = (n: number) => (args[n] ? this.tokens.slice(args[n]![0], args[n]![1]) : []);
      const isTimestamp = (n: number) => args[n] !== undefined && this.hintOf(args[n]![0], args[n]![1], byName).kind === 'timestamp';
      const zonelessString = (n: number) => {
        const tokens = argText(n);
        return tokens.length === 1 && tokens[0]!.kind === 'string' && /^\s*\d{4}-\d{1,2}-\d{1,2}/.test(tokens[0]!.body ?? '') && !hasZone(tokens[0]!.body ?? '');
      };
      const name = this.dottedNameEndingAt(i);
      if (isPunct(this.tokens[i - 1], '.') && !name.includes('.')) continue;
      if (name === 'TIMESTAMP' && args.length === 1 && !(argText(0).length === 1 && argText(0)[0]!.kind === 'string' && hasZone(argText(0)[0]!.body ?? ''))) {
        return 'TIMESTAMP(…) of a civil time without a zone';
      }
      if ((name === 'CAST' || name === 'SAFE_CAST') && args.length === 1) {
        const as = this.tokens.findIndex((x, k) => k > i + 1 && k < close && upper(x) === 'AS' && this.parent[k] === i + 1);
        const target = upper(this.tokens[as + 1]);
        const zoned = this.tokens.slice(as, close).some((x, k) => upper(x) === 'ZONE' && upper(this.tokens[as + k - 1]) === 'TIME');
        const source = this.hintOf(i + 2, as, byName);
        if (target === 'TIMESTAMP' && !zoned && !(source.kind === 'timestamp')) {
          const literal = this.tokens.slice(i + 2, as);
          if (!(literal.length === 1 && literal[0]!.kind === 'string' && hasZone(literal[0]!.body ?? ''))) return 'CAST(… AS TIMESTAMP) of a civil time without a zone';
        }
        if (source.kind === 'timestamp' && ['STRING', 'DATE', 'DATETIME', 'TIME'].includes(target) && !zoned) return `CAST(TIMESTAMP AS ${target}) without a zone`;
      }
      if (name === 'EXTRACT') {
        const fromAt = this.tokens.findIndex((x, k) => k > i + 1 && k < close && upper(x) === 'FROM' && this.parent[k] === i + 1);
        const zoneAt = this.tokens.findIndex((x, k) => k > fromAt && k < close && upper(x) === 'AT' && this.parent[k] === i + 1);
        if (fromAt > 0 && zoneAt < 0 && this.hintOf(fromAt + 1, close, byName).kind === 'timestamp') return 'EXTRACT from a TIMESTAMP without AT TIME ZONE';
      }
      if (['DATE', 'DATETIME', 'TIME', 'STRING'].includes(name) && args.length === 1 && isTimestamp(0)) return `${name}(TIMESTAMP) without a zone`;
      if (name === 'FORMAT_TIMESTAMP' && args.length === 2) return 'FORMAT_TIMESTAMP without a zone';
      if (name === 'PARSE_TIMESTAMP' && args.length === 2) {
        const format = argText(0)[0]?.body ?? '';
        if (!/%(z|Ez|Z|c|s)/.test(format) || /%c/.test(format)) return 'PARSE_TIMESTAMP without a zone';
      }
      if (name === 'TIMESTAMP_TRUNC' && args.length === 2) {
        const part = upper(argText(1)[0]);
        if (['DAY', 'WEEK', 'ISOWEEK', 'MONTH', 'QUARTER', 'YEAR', 'ISOYEAR'].includes(part)) return 'TIMESTAMP_TRUNC to a day or longer without a zone';
      }
      if (name === 'TIMESTAMP_BUCKET') return 'TIMESTAMP_BUCKET (its origin is read in the default zone)';
      if (TIMESTAMP_ARGS.has(name) && args.some((_, n) => zonelessString(n))) return `${name} of a string without a zone`;
      if (name === 'GENERATE_TIMESTAMP_ARRAY' && [0, 1].some((n) => zonelessString(n))) return 'GENERATE_TIMESTAMP_ARRAY of strings without a zone';
    }
    return undefined;
  }
}

/** BigQuery's type of a result column, as far as the harness needs it. */
export type Hint =
  | { kind: 'any' }
  | { kind: 'json' }
  | { kind: 'bytes' }
  /**
   * `unorderedParts`: STRING_AGG without ORDER BY, its parts (split at this delimiter) in any order.
   * `nullText`: FORMAT's text, where %t and %T write a NULL value as NULL, which the page prints
   * as it prints a NULL.
   */
  | { kind: 'string'; unorderedParts?: string; nullText?: boolean }
  | { kind: 'timestamp' }
  /** `unordered`: BigQuery leaves the order of the elements unspecified (ARRAY_AGG without ORDER BY). */
  | { kind: 'array'; element: Hint; unordered?: boolean };

export const ANY: Hint = { kind: 'any' };
const JSON_HINT: Hint = { kind: 'json' };
const BYTES: Hint = { kind: 'bytes' };
const STRING: Hint = { kind: 'string' };
const TIMESTAMP: Hint = { kind: 'timestamp' };
const arrayOf = (element: Hint, unordered = false): Hint => (unordered ? { kind: 'array', element, unordered } : { kind: 'array', element });

/** A string literal token's value (simple escapes; raw strings as written). */
function unescapeString(t: Token): string {
  const body = t.body ?? '';
  if (t.prefix?.includes('r')) return body;
  return body.replace(/\\(x[0-9a-fA-F]{2}|.)/g, (_, e: string) => (e.length === 3 ? String.fromCharCode(parseInt(e.slice(1), 16)) : ({ n: '\n', t: '\t', r: '\r' } as Record<string, string>)[e] ?? e));
}
const sameHint = (a: Hint, b: Hint): boolean => JSON.stringify(a) === JSON.stringify(b);

function identName(t: Token): string {
  return (t.kind === 'quoted' ? (t.body ?? '') : t.text).toLowerCase();
}

/** A time literal's text names its zone: an offset, Z, UTC or a zone name. */
function hasZone(text: string): boolean {
  const trimmed = text.trim();
  return /\d:\d{2}(:\d{2}(\.\d+)?)?\s*([+-]\d{1,2}(:?\d{2})?|Z)$/i.test(trimmed) || /\s(UTC|GMT|Z|[A-Za-z_]+\/[A-Za-z_/+-]+)$/i.test(trimmed);
}

const CLAUSES = new Set(['WHERE', 'GROUP', 'HAVING', 'QUALIFY', 'WINDOW', 'ORDER', 'LIMIT', 'UNION', 'INTERSECT', 'EXCEPT', 'OFFSET']);
const KEYWORDS = new Set([
  ...CLAUSES,
  'SELECT', 'FROM', 'JOIN', 'ON', 'USING', 'AS', 'WITH', 'UNNEST', 'LEFT', 'RIGHT', 'INNER', 'OUTER', 'FULL', 'CROSS', 'AND', 'OR', 'NOT',
  'IN', 'IS', 'NULL', 'TRUE', 'FALSE', 'CASE', 'WHEN', 'THEN', 'ELSE', 'END', 'BY', 'DISTINCT', 'ALL', 'OVER', 'PARTITION', 'ROWS', 'RANGE',
  'BETWEEN', 'LIKE', 'ASC', 'DESC', 'NULLS', 'FIRST', 'LAST', 'LATERAL', 'TABLESAMPLE', 'PIVOT', 'UNPIVOT', 'FOR', 'AT',
]);
const BINARY = new Set(['+', '-', '*', '/', '=', '<', '>', '<=', '>=', '<>', '!=', '&', '|', '^', '<<', '>>']);
const LOGICAL = new Set(['AND', 'OR', 'NOT', 'IS', 'IN', 'LIKE', 'BETWEEN']);
const TYPED_LITERAL = new Set(['JSON', 'DATE', 'DATETIME', 'TIME', 'TIMESTAMP', 'NUMERIC', 'BIGNUMERIC', 'INTERVAL', 'RANGE']);

const JSON_RESULT = new Set([
  'JSON_ARRAY', 'JSON_OBJECT', 'JSON_SET', 'JSON_REMOVE', 'JSON_STRIP_NULLS', 'JSON_ARRAY_APPEND', 'JSON_ARRAY_INSERT', 'PARSE_JSON', 'TO_JSON',
  'SAFE_TO_JSON',
]);
const BYTES_RESULT = new Set([
  'FROM_BASE64', 'FROM_BASE32', 'FROM_HEX', 'CODE_POINTS_TO_BYTES', 'MD5', 'SHA1', 'SHA256', 'SHA512', 'NET.IP_FROM_STRING', 'NET.SAFE_IP_FROM_STRING',
  'NET.IP_NET_MASK', 'NET.IP_TRUNC', 'NET.PARSE_PACKED_IP', 'HIGHWAY_FINGERPRINT128',
]);
const STRING_RESULT = new Set([
  'JSON_VALUE', 'JSON_EXTRACT_SCALAR', 'TO_JSON_STRING', 'JSON_TYPE', 'LAX_STRING', 'TO_BASE64', 'TO_BASE32', 'TO_HEX',
  'SAFE_CONVERT_BYTES_TO_STRING', 'CODE_POINTS_TO_STRING', 'NET.HOST', 'NET.PUBLIC_SUFFIX', 'NET.REG_DOMAIN', 'NET.IP_TO_STRING', 'FORMAT_DATE',
  'FORMAT_DATETIME', 'FORMAT_TIME', 'FORMAT_TIMESTAMP', 'CHR', 'INITCAP', 'SOUNDEX', 'NORMALIZE', 'NORMALIZE_AND_CASEFOLD', 'TRANSLATE',
]);
const STRING_ARRAY_RESULT = new Set(['JSON_VALUE_ARRAY', 'JSON_EXTRACT_STRING_ARRAY', 'JSON_KEYS']);
const TIMESTAMP_RESULT = new Set([
  'TIMESTAMP', 'CURRENT_TIMESTAMP', 'TIMESTAMP_ADD', 'TIMESTAMP_SUB', 'TIMESTAMP_TRUNC', 'TIMESTAMP_SECONDS', 'TIMESTAMP_MILLIS',
  'TIMESTAMP_MICROS', 'TIMESTAMP_FROM_UNIX_SECONDS', 'TIMESTAMP_FROM_UNIX_MILLIS', 'TIMESTAMP_FROM_UNIX_MICROS', 'PARSE_TIMESTAMP', 'TIMESTAMP_BUCKET',
]);
/** Functions that return their first argument's type (string or bytes in, the same out). */
const SAME_AS_FIRST = new Set([
  'LEFT', 'RIGHT', 'SUBSTR', 'SUBSTRING', 'LPAD', 'RPAD', 'REVERSE', 'REPEAT', 'REPLACE', 'TRIM', 'LTRIM', 'RTRIM', 'CONCAT', 'LOWER', 'UPPER',
  'COALESCE', 'IFNULL', 'NULLIF', 'ANY_VALUE', 'MIN', 'MAX', 'ARRAY_REVERSE', 'ARRAY_CONCAT', 'ARRAY_SLICE', 'REGEXP_EXTRACT', 'REGEXP_REPLACE',
  'REGEXP_SUBSTR', 'FIRST_VALUE', 'LAST_VALUE', 'NTH_VALUE', 'LAG', 'LEAD', 'GREATEST', 'LEAST', 'PERCENTILE_DISC',
]);
const ARRAY_OF_FIRST = new Set(['ARRAY_AGG', 'SPLIT', 'REGEXP_EXTRACT_ALL', 'APPROX_QUANTILES']);
const UNORDERED_AGGREGATES = new Set(['ARRAY_AGG']);
const ELEMENT_OF_FIRST = new Set(['ARRAY_FIRST', 'ARRAY_LAST']);
/** Functions whose string arguments BigQuery coerces to TIMESTAMP. */
const TIMESTAMP_ARGS = new Set(['TIMESTAMP_DIFF', 'TIMESTAMP_ADD', 'TIMESTAMP_SUB', 'TIMESTAMP_TRUNC', 'UNIX_SECONDS', 'UNIX_MILLIS', 'UNIX_MICROS', 'FORMAT_TIMESTAMP']);
