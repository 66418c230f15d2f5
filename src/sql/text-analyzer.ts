/**
 * BigQuery's text analyzers as SEARCH uses them (LOG_ANALYZER, PATTERN_ANALYZER; NO_OP_ANALYZER
 * needs none of this), with the analyzer_options Sawmill runs: LOG_ANALYZER's `delimiters`,
 * PATTERN_ANALYZER's `patterns` (one RE2 pattern), and the token filters `normalizer` (mode
 * LOWER, the default, or NONE) and `stop_words`. Read once at save; the query's tokens are made
 * here, the data's by each engine from the same delimiters or pattern.
 */

import { RE2JS } from 're2js';
import { patternInfo, patternProblem } from './functions/regexp.ts';

/**
 * LOG_ANALYZER's default delimiters, as an RE2 alternation that takes the longest first: the
 * characters [ ] < > ( ) { } | ! ; , ' " * & ? + / : = @ . - $ % \ _ and whitespace, and the
 * percent-encoded forms of some (text is lower-cased first, so one case suffices).
 */
export const LOG_DELIMITERS = `(?:%2526|%2520|%21|%26|%3b|%7c|%20|%2b|%3d|%5d|%5b|%3a|%0a|%2c|%28|%29|[\\[\\]<>(){}|!;,'"*&?+/:=@.$%\\\\_\\s-])`;

/** PATTERN_ANALYZER's default pattern: words (ASCII word characters) of two characters or more. */
const DEFAULT_PATTERN = '\\b\\w{2,}\\b';

export interface TextAnalyzer {
  name: 'LOG_ANALYZER' | 'PATTERN_ANALYZER';
  /** LOG_ANALYZER: the delimiters as one RE2 pattern. PATTERN_ANALYZER: what a token matches. */
  pattern: string;
  /** A-Z made a-z on both sides (normalizer mode LOWER); NONE keeps case. */
  lower: boolean;
  /** Tokens the query's terms leave out (after normalization). */
  stopWords: ReadonlySet<string>;
}

const escapeRegex = (text: string) => text.replace(/[\\^$.|?*+()[\]{}]/g, (char) => `\\${char}`);
export const lowerAscii = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

type Parsed = TextAnalyzer | { error: string };

/** The analyzer `name` with `optionsText` (analyzer_options, a JSON object), or what is wrong with them. */
export function textAnalyzer(name: 'LOG_ANALYZER' | 'PATTERN_ANALYZER', optionsText: string | undefined): Parsed {
  const analyzer: TextAnalyzer = { name, pattern: name === 'LOG_ANALYZER' ? LOG_DELIMITERS : DEFAULT_PATTERN, lower: true, stopWords: new Set() };
  if (optionsText === undefined) return analyzer;
  let options: unknown;
  try {
    options = JSON.parse(optionsText);
  } catch {
    return { error: 'analyzer_options must be a JSON object' };
  }
  if (!isObject(options)) return { error: 'analyzer_options must be a JSON object' };
  const own = name === 'LOG_ANALYZER' ? 'delimiters' : 'patterns';
  for (const [key, value] of Object.entries(options)) {
    if (key === own) {
      const pattern = key === 'delimiters' ? delimiterPattern(value) : tokenPattern(value);
      if (typeof pattern !== 'string') return pattern;
      analyzer.pattern = pattern;
    } else if (key === 'token_filters') {
      const problem = readTokenFilters(value, analyzer);
      if (problem) return problem;
    } else return { error: `analyzer_options of ${name} has no option ${key}` };
  }
  return analyzer;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

function delimiterPattern(value: unknown): string | { error: string } {
  if (!isStringList(value) || value.some((item) => item === '')) return { error: 'delimiters must be an array of non-empty strings' };
  const longestFirst = [...value].sort((a, b) => b.length - a.length);
  return `(?:${longestFirst.map(escapeRegex).join('|')})`;
}

function tokenPattern(value: unknown): string | { error: string } {
  if (!isStringList(value) || value.length !== 1) return { error: 'patterns must be an array of one regular expression' };
  const pattern = value[0]!;
  const problem = patternProblem(pattern);
  if (problem) return { error: problem };
  if (patternInfo(pattern).nullable) return { error: 'PATTERN_ANALYZER with a pattern that matches the empty string is not supported' };
  return pattern;
}

function readTokenFilters(value: unknown, analyzer: TextAnalyzer): { error: string } | undefined {
  if (!Array.isArray(value)) return { error: 'token_filters must be an array' };
  for (const filter of value) {
    if (isObject(filter) && isObject(filter.normalizer) && Object.keys(filter).length === 1) {
      const mode = filter.normalizer.mode ?? 'LOWER';
      if (mode === 'ICU_NORMALIZE') return { error: 'the ICU_NORMALIZE normalizer is not supported' };
      if (mode !== 'LOWER' && mode !== 'NONE') return { error: "normalizer mode must be one of 'NONE', 'LOWER' and 'ICU_NORMALIZE'" };
      if (Object.keys(filter.normalizer).some((key) => key !== 'mode')) return { error: 'normalizer options other than mode are not supported' };
      analyzer.lower = mode === 'LOWER';
    } else if (isObject(filter) && isStringList(filter.stop_words) && Object.keys(filter).length === 1) {
      analyzer.stopWords = new Set(filter.stop_words);
    } else return { error: 'each token filter is an object with one of normalizer and stop_words' };
  }
  return undefined;
}

/** Text as the analyzer's normalizer leaves it. */
export const normalized = (analyzer: TextAnalyzer, text: string) => (analyzer.lower ? lowerAscii(text) : text);

/** The tokens of `text` (normalized first), stop words left out. */
export function tokens(analyzer: TextAnalyzer, text: string): string[] {
  const input = normalized(analyzer, text);
  // RE2 (as the engines), not JavaScript's RegExp: \s and \w differ.
  const matcher = RE2JS.compile(analyzer.pattern).matcher(input);
  const found: string[] = [];
  let end = 0;
  while (matcher.find()) {
    if (analyzer.name === 'PATTERN_ANALYZER') found.push(matcher.group()!);
    else found.push(input.slice(end, matcher.start()));
    end = matcher.end();
  }
  if (analyzer.name === 'LOG_ANALYZER') found.push(input.slice(end));
  return found.filter((token) => token !== '' && !analyzer.stopWords.has(token));
}

export type QueryTerm = { kind: 'token'; text: string } | { kind: 'phrase'; text: string };

/**
 * A SEARCH query's terms. LOG_ANALYZER: cut at unescaped whitespace; text between backticks is a
 * phrase, taken as written (a backslash in it stays); elsewhere a backslash makes the next
 * character part of the term (`foo\ bar` is one term), and each term is cut into tokens.
 * PATTERN_ANALYZER: the query's tokens. BigQuery's refusal of a query with nothing to search for.
 */
export function queryTerms(analyzer: TextAnalyzer, query: string): QueryTerm[] | { error: string } {
  const terms: QueryTerm[] = analyzer.name === 'PATTERN_ANALYZER' ? tokens(analyzer, query).map((text) => ({ kind: 'token', text })) : [];
  if (analyzer.name === 'LOG_ANALYZER') {
    let term = '';
    const endTerm = () => {
      for (const token of tokens(analyzer, term)) terms.push({ kind: 'token', text: token });
      term = '';
    };
    for (let index = 0; index < query.length; index++) {
      const char = query[index]!;
      if (char === '\\') {
        if (index + 1 === query.length) return { error: 'Invalid search query: it ends with an unescaped backslash' };
        term += query[++index];
      } else if (char === '`') {
        const close = query.indexOf('`', index + 1);
        if (close < 0) return { error: 'Invalid search query: unmatched backtick' };
        endTerm();
        const phrase = query.slice(index + 1, close);
        if (tokens({ ...analyzer, stopWords: new Set() }, phrase).length > 0) terms.push({ kind: 'phrase', text: normalized(analyzer, phrase) });
        index = close;
      } else if (/\s/.test(char)) endTerm();
      else term += char;
    }
    endTerm();
  }
  if (terms.length === 0) return { error: 'SEARCH query has no tokens' };
  return terms;
}

/** An RE2 pattern: `phrase` as written, with a delimiter or an end of the text on each side. */
export const phrasePattern = (analyzer: TextAnalyzer, phrase: string) => `(?:^|${analyzer.pattern})${escapeRegex(phrase)}(?:${analyzer.pattern}|$)`;
