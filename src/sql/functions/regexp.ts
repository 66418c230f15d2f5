/**
 * What the engines need to know about an RE2 pattern (BigQuery's regular expressions) before
 * they run it: whether it parses, how many capturing groups it has, whether it can match the
 * empty string (BigQuery's REGEXP_EXTRACT_ALL and REGEXP_INSTR step over empty matches in their
 * own way, which the engines' native functions do not share), and whether its capturing group
 * can stay out of a match (REGEXP_EXTRACT gives NULL then, the engines give ''). Patterns are
 * checked with re2js (a port of RE2); the structure is read by a small parser of RE2's syntax.
 */

import { RE2JS, RE2JSException } from 're2js';

export interface PatternInfo {
  /** Capturing groups (`(…)`, `(?P<n>…)`, `(?<n>…)`). */
  groups: number;
  /** Some match can be empty (`a*`, `x?`, `^`, `\b`, `()` …). */
  nullable: boolean;
  /** The first capturing group may be absent from a match: inside `?`, `*`, `{0,n}` or one branch of `|`. */
  groupOptional: boolean;
  /** The first capturing group can match the empty string (when it cannot, an empty text means it took no part). */
  groupNullable: boolean;
  /**
   * The pattern as `prefix (group) suffix` when its first capturing group sits at the top level
   * (not inside an alternation or a repetition): the text before it, the group's own text and
   * the text after it. `flags` is an inline flag setting that starts the pattern (`(?i)`), kept
   * apart so the parts can be regrouped without changing what they match.
   */
  topLevelGroup?: { flags: string; prefix: string; group: string; suffix: string };
}

/** Unicode's White_Space characters as an RE2 class: what TRIM removes by default. */
export const WHITESPACE_CLASS = '[\\t\\n\\v\\f\\r \\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}]';

/** BigQuery's refusal of an invalid pattern, or undefined when RE2 takes it. */
export function patternProblem(pattern: string): string | undefined {
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    return `Cannot parse regular expression: ${error.message}`;
  }
}

/** The structure of a pattern RE2 takes (check it with patternProblem first). */
export function patternInfo(pattern: string): PatternInfo {
  const parser = new PatternParser(pattern);
  const root = parser.alternation();
  const info: PatternInfo = { groups: parser.groups, nullable: root.nullable, groupOptional: root.firstGroupOptional ?? false, groupNullable: parser.firstGroupNullable };
  const split = topLevelSplit(pattern, root);
  return split ? { ...info, topLevelGroup: split } : info;
}

interface Node {
  nullable: boolean;
  /** Whether the first capturing group inside may be absent; undefined when it has none. */
  firstGroupOptional?: boolean;
  /** Top-level items of a single-branch pattern, with their text spans. */
  items?: Item[];
}

interface Item {
  start: number;
  end: number;
  kind: 'group' | 'flags' | 'other';
  /** The item holds the first capturing group somewhere inside (for `group`: is it). */
  holdsGroup: boolean;
}

function topLevelSplit(pattern: string, root: Node): PatternInfo['topLevelGroup'] {
  const items = root.items;
  if (!items) return undefined;
  const index = items.findIndex((item) => item.holdsGroup);
  const group = items[index];
  if (group?.kind !== 'group') return undefined;
  // An inline flag setting applies to what follows it in the same group: only one that starts
  // the pattern survives regrouping.
  const leadingFlags = items[0]?.kind === 'flags' ? items[0] : undefined;
  if (items.some((item, at) => item.kind === 'flags' && at > 0)) return undefined;
  const start = leadingFlags?.end ?? 0;
  return {
    flags: pattern.slice(0, start),
    prefix: pattern.slice(start, group.start),
    group: pattern.slice(group.start + 1, group.end - 1),
    suffix: pattern.slice(group.end),
  };
}

class PatternParser {
  private index = 0;
  groups = 0;
  firstGroupNullable = false;

  constructor(private readonly text: string) {}

  alternation(): Node {
    const branches = [this.concatenation()];
    while (this.text[this.index] === '|') {
      this.index++;
      branches.push(this.concatenation());
    }
    if (branches.length === 1) return branches[0]!;
    const holding = branches.find((branch) => branch.firstGroupOptional !== undefined);
    return { nullable: branches.some((branch) => branch.nullable), ...(holding ? { firstGroupOptional: true } : {}) };
  }

  private concatenation(): Node {
    const items: Item[] = [];
    let nullable = true;
    let firstGroupOptional: boolean | undefined;
    while (this.index < this.text.length && this.text[this.index] !== '|' && this.text[this.index] !== ')') {
      const start = this.index;
      const groupsBefore = this.groups;
      const atom = this.repetition();
      const holdsGroup = groupsBefore === 0 && this.groups > 0;
      if (holdsGroup) firstGroupOptional = atom.node.firstGroupOptional;
      nullable &&= atom.node.nullable;
      items.push({ start, end: this.index, kind: atom.kind, holdsGroup });
    }
    return { nullable, ...(firstGroupOptional !== undefined ? { firstGroupOptional } : {}), items };
  }

  /** An atom and the repetition operators after it. */
  private repetition(): { node: Node; kind: Item['kind'] } {
    const atom = this.atom();
    let node = atom.node;
    let repeated = false;
    for (;;) {
      const min = this.quantifier();
      if (min === undefined) break;
      repeated = true;
      if (this.text[this.index] === '?') this.index++;
      if (min === 0) node = { nullable: true, ...(node.firstGroupOptional !== undefined ? { firstGroupOptional: true } : {}) };
    }
    return { node, kind: repeated ? 'other' : atom.kind };
  }

  /** The least count of a repetition operator here (`*` 0, `+` 1, `{2,}` 2), consumed; undefined if none. */
  private quantifier(): number | undefined {
    const char = this.text[this.index];
    if (char === '*' || char === '?') {
      this.index++;
      return 0;
    }
    if (char === '+') {
      this.index++;
      return 1;
    }
    if (char === '{') {
      const match = /^\{(\d+)(,\d*)?\}/.exec(this.text.slice(this.index));
      if (match) {
        this.index += match[0].length;
        return Number(match[1]);
      }
    }
    return undefined;
  }

  private atom(): { node: Node; kind: Item['kind'] } {
    const char = this.text[this.index]!;
    if (char === '(') return this.group();
    if (char === '[') {
      this.skipClass();
      return { node: { nullable: false }, kind: 'other' };
    }
    if (char === '\\') return { node: this.escape(), kind: 'other' };
    this.index++;
    return { node: { nullable: char === '^' || char === '$' }, kind: 'other' };
  }

  private group(): { node: Node; kind: Item['kind'] } {
    this.index++;
    const rest = this.text.slice(this.index);
    const flagsOnly = /^\?[a-zA-Z-]*\)/.exec(rest);
    if (flagsOnly) {
      this.index += flagsOnly[0].length;
      return { node: { nullable: true }, kind: 'flags' };
    }
    const named = /^\?P?<[^>]*>/.exec(rest);
    const nonCapturing = /^\?[a-zA-Z-]*:/.exec(rest);
    const capturing = named !== null || nonCapturing === null;
    if (named) this.index += named[0].length;
    else if (nonCapturing) this.index += nonCapturing[0].length;
    const first = capturing && this.groups === 0;
    if (capturing) this.groups++;
    const inner = this.alternation();
    this.index++; // ')'
    if (first) this.firstGroupNullable = inner.nullable;
    const firstGroupOptional = first ? false : inner.firstGroupOptional;
    return { node: { nullable: inner.nullable, ...(firstGroupOptional !== undefined ? { firstGroupOptional } : {}) }, kind: first ? 'group' : 'other' };
  }

  private escape(): Node {
    const next = this.text[this.index + 1];
    this.index += 2;
    if (next === 'Q') {
      const end = this.text.indexOf('\\E', this.index);
      const literal = end < 0 ? this.text.slice(this.index) : this.text.slice(this.index, end);
      this.index = end < 0 ? this.text.length : end + 2;
      return { nullable: literal.length === 0 };
    }
    if (next === 'p' || next === 'P' || next === 'x') {
      if (this.text[this.index] === '{') this.index = this.text.indexOf('}', this.index) + 1;
      else this.index += next === 'x' ? 2 : 1;
    }
    return { nullable: next === 'b' || next === 'B' || next === 'A' || next === 'z' };
  }

  private skipClass(): void {
    this.index++;
    if (this.text[this.index] === '^') this.index++;
    if (this.text[this.index] === ']') this.index++;
    while (this.index < this.text.length && this.text[this.index] !== ']') {
      if (this.text.startsWith('[:', this.index)) this.index = this.text.indexOf(':]', this.index) + 2;
      else if (this.text[this.index] === '\\') {
        const next = this.text[this.index + 1];
        this.index += 2;
        if ((next === 'p' || next === 'P' || next === 'x') && this.text[this.index] === '{') this.index = this.text.indexOf('}', this.index) + 1;
        else if (next === 'x') this.index += 2;
        else if (next === 'p' || next === 'P') this.index += 1;
      } else this.index++;
    }
    this.index++;
  }
}
