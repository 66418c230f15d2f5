/**
 * The regular expressions a user writes that Node itself evaluates: the live tail's `path:~"…"`
 * filters, run on the main thread against every committed event. They run in re2js, a JavaScript
 * port of RE2: the same syntax as BigQuery, DuckDB and ClickHouse (which run the explorer's and
 * endpoints' regexes) and time linear in the text, never backtracking. Linear is not small: a
 * test costs up to program size × text length steps (a 200-instruction program over 1 MiB of
 * text took 6 s in RE2's NFA), so one test is refused past MAX_TEST_COST, and all tails together
 * spend at most BUDGET_MS_PER_SECOND of the main thread on regexes (docs/security.md).
 */
import { RE2JS, RE2JSException } from 're2js';
import { lqlError } from './lql.ts';

/** Largest compiled pattern: RE2 instructions (a literal character is one, `x{100}` a hundred). */
export const MAX_REGEX_PROGRAM = 1_000;
/** Most program instructions × characters one test may take: about 50-100 ms in RE2's slowest (NFA) mode. */
export const MAX_TEST_COST = 2_000_000;
/** Main-thread time all tails' regexes may take, per second of wall time (and at most at once). */
export const BUDGET_MS_PER_SECOND = 100;

/** A test that was not run: over MAX_TEST_COST, or the budget is spent. The event is reported, not matched. */
export class RegexSkipped extends Error {
  override name = 'RegexSkipped';
}

/** A leaky bucket of main-thread milliseconds, shared by every tail. */
export class RegexBudget {
  private available: number;
  private at = performance.now();

  constructor(private readonly msPerSecond = BUDGET_MS_PER_SECOND) {
    this.available = msPerSecond;
  }

  /** Whether a test may start now. */
  open(): boolean {
    const now = performance.now();
    this.available = Math.min(this.msPerSecond, this.available + ((now - this.at) * this.msPerSecond) / 1000);
    this.at = now;
    return this.available > 0;
  }

  spend(ms: number): void {
    this.available -= ms;
  }
}

const sharedBudget = new RegexBudget();

/** Compile an LQL pattern as RE2 does, or say why not (400 invalid_query). */
export function compileRegex(pattern: string, field: string): RE2JS {
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(pattern);
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    throw lqlError(`invalid regular expression for ${field} (RE2 syntax, as BigQuery's): ${error.message}`);
  }
  if (regex.programSize() > MAX_REGEX_PROGRAM) {
    throw lqlError(`the regular expression for ${field} is too large: ${regex.programSize()} RE2 instructions, at most ${MAX_REGEX_PROGRAM}`);
  }
  return regex;
}

/** A test of `regex` against one value at a time; throws RegexSkipped instead of running one it may not. */
export function regexTester(regex: RE2JS, budget: RegexBudget = sharedBudget): (text: string) => boolean {
  const size = regex.programSize();
  return (text) => {
    if (size * text.length > MAX_TEST_COST || !budget.open()) throw new RegexSkipped();
    const started = performance.now();
    try {
      return regex.test(text);
    } finally {
      budget.spend(performance.now() - started);
    }
  };
}
