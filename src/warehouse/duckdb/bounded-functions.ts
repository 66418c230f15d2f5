/**
 * DuckDB spellings of the functions whose output size the query chooses, each checked at run time
 * against the bounds in src/sql/output-limits.ts before anything is built. DuckDB allocates a
 * list or string outside its memory limit and cannot interrupt a single call: unchecked,
 * `generate_array(1, 1000000000)` grew the process by ~370 MB/s past SAWMILL_MEMORY_LIMIT until the
 * OS killed it. CASE evaluates its ELSE only for rows its WHEN let through, so an oversize call
 * raises DuckDB's error() instead of building. The arguments are printed twice (evaluated twice),
 * which costs nothing for constants and parameters, the usual arguments.
 */
import { arg, optionalArg, type CallParts, type Emitter } from '../../sql/emitters.ts';
import { MAX_GENERATED_ARRAY_ELEMENTS, MAX_STRING_OUTPUT_BYTES, outputTooLarge, tooManyElements } from '../../sql/output-limits.ts';
import { fail } from './functions/shared.ts';

const refuseWhen = (call: CallParts, condition: string, message: string, value: string) => `(CASE WHEN ${condition} THEN ${fail(call, message)} ELSE ${value} END)`;

const double = (value: string) => `CAST(${value} AS DOUBLE)`;

/** `(end - start) / step >= MAX` in doubles (no overflow); a zero step is left to generate_series to refuse. */
const tooLong = (start: string, end: string, step: string) =>
  `${double(step)} <> 0 AND (${double(end)} - ${double(start)}) / ${double(step)} >= ${MAX_GENERATED_ARRAY_ELEMENTS}`;

export const generateArray: Emitter = (call) => {
  const [start, end, step] = [arg(call, 0), arg(call, 1), optionalArg(call, 2) ?? '1'];
  // A zero step is BigQuery's error (NULL when a bound is NULL); DuckDB's generate_series gives [] for it.
  const series = refuseWhen(call, `${step} = 0 AND ${start} IS NOT NULL AND ${end} IS NOT NULL`, 'Sequence step cannot be 0.', `generate_series(${start}, ${end}, ${step})`);
  return refuseWhen(call, tooLong(start, end, step), tooManyElements('generate_array'), series);
};

export const generateTimestampArray: Emitter = (call) => {
  const [start, end, step] = [`CAST(${arg(call, 0)} AS TIMESTAMPTZ)`, `CAST(${arg(call, 1)} AS TIMESTAMPTZ)`, arg(call, 2)];
  // The step's length in microseconds from the start itself, so months and years count as they fall.
  const stepMicros = `(epoch_us(${start} + ${step}) - epoch_us(${start}))`;
  const condition = tooLong(`epoch_us(${start})`, `epoch_us(${end})`, stepMicros);
  return refuseWhen(call, condition, tooManyElements('generate_timestamp_array'), `generate_series(${start}, ${end}, ${step})`);
};

export const repeat: Emitter = (call) => {
  const [text, count] = [arg(call, 0), `CAST(${arg(call, 1)} AS BIGINT)`];
  return refuseWhen(call, `${double(`strlen(${text})`)} * ${count} > ${MAX_STRING_OUTPUT_BYTES}`, outputTooLarge('repeat'), `repeat(${text}, ${count})`);
};

/**
 * REPLACE grows its input by (|to| - |from|) per occurrence: the occurrences are counted by what
 * deleting them leaves, a pass that only shrinks. A literal `to` no longer than a literal `from`
 * cannot grow anything and is left alone (the usual case: deleting or masking characters).
 */
export const replace: Emitter = (call) => {
  const [text, from, to] = [arg(call, 0), arg(call, 1), arg(call, 2)];
  const value = `replace(${text}, ${from}, ${to})`;
  const [rawFrom, rawTo] = [call.raw[1], call.raw[2]];
  if (rawFrom?.kind === 'string' && rawTo?.kind === 'string' && rawTo.value.length <= rawFrom.value.length) return value;
  const occurrences = `(${double(`strlen(${text})`)} - strlen(replace(${text}, ${from}, ''))) / greatest(strlen(${from}), 1)`;
  const grown = `${double(`strlen(${text})`)} + ${occurrences} * (strlen(${to}) - strlen(${from}))`;
  return refuseWhen(call, `strlen(${to}) > strlen(${from}) AND ${grown} > ${MAX_STRING_OUTPUT_BYTES}`, outputTooLarge('replace'), value);
};

/** LPAD/RPAD build exactly `length` characters. */
export const padding =
  (name: 'lpad' | 'rpad'): Emitter =>
  (call) => {
    const length = `CAST(${arg(call, 1)} AS INTEGER)`;
    const value = `${name}(${arg(call, 0)}, ${length}, ${optionalArg(call, 2) ?? "' '"})`;
    return refuseWhen(call, `${length} > ${MAX_STRING_OUTPUT_BYTES}`, outputTooLarge(name), value);
  };
