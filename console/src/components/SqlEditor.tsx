import { sql, SQLDialect, StandardSQL } from '@codemirror/lang-sql';
import { Annotation, Compartment, StateEffect, StateField, type EditorState } from '@codemirror/state';
import { Decoration, type DecorationSet, keymap, MatchDecorator, ViewPlugin, type ViewUpdate } from '@codemirror/view';
import { EditorView, basicSetup } from 'codemirror';
import { useEffect, useRef } from 'preact/hooks';

/** What an endpoint's query is written in (the service's `language`). */
export type QueryLanguage = 'bq_sql' | 'ch_sql' | 'lql';

/** BigQuery's lexical rules as far as highlighting goes: backtick identifiers and @parameters. */
const BigQuerySql = SQLDialect.define({ ...StandardSQL.spec, identifierQuotes: '`', specialVar: '@', hashComments: true });

/**
 * ClickHouse SQL as far as highlighting goes (lang-sql has no ClickHouse dialect): its keywords,
 * types and the functions people use on logs; backtick or double-quoted identifiers, backslash
 * escapes in strings, # comments, @name parameters ({name:Type} ones are braces around a name).
 */
const ClickHouseSql = SQLDialect.define({
  keywords:
    'all and any anti array as asc asof between both by case cast cross database desc distinct else end except exists extract false final first ' +
    'format from full global group having if ilike in inner interval is join last left like limit not null nulls offset on or order outer over ' +
    'partition prewhere right sample select semi settings then ties to top totals true union using when where window with',
  types:
    'uint8 uint16 uint32 uint64 uint128 uint256 int8 int16 int32 int64 int128 int256 float32 float64 decimal string fixedstring uuid date date32 ' +
    'datetime datetime64 bool boolean enum8 enum16 array tuple map nullable lowcardinality json ipv4 ipv6',
  builtin:
    'count countif sum sumif avg avgif min max uniq uniqexact quantile quantiles median any anylast argmax argmin grouparray ' +
    'tostartofminute tostartoffiveminutes tostartofhour tostartofday tostartofinterval tostartofweek tostartofmonth todate todatetime ' +
    'tounixtimestamp toint32orzero toint64orzero tofloat64orzero toint32ornull toint64ornull tofloat64ornull tostring ' +
    'multiif match extract extractall position positioncaseinsensitive splitbychar arrayjoin has length lower upper concat substring replaceall ' +
    'jsonextract jsonextractstring jsonextractint jsonextractfloat jsonextractbool jsonextractraw formatdatetime now today coalesce ifnull',
  identifierQuotes: '`"',
  specialVar: '@',
  hashComments: true,
  backslashEscapes: true,
});

/**
 * LQL's pieces, each drawn in its own colour: the `f:` source rule, field names before `:`, quoted
 * text, OR / AND / NOT, and @parameters. Bare words (searched in the message) stay plain.
 */
const LQL_TOKENS = /(?<source>(?<![^\s(])(?:f|from):(?:"(?:[^"\\]|\\.)*"|[^\s)]+))|(?<field>(?<![^\s(])-?[A-Za-z_][\w.]*)(?=:)|(?<text>"(?:[^"\\]|\\.)*")|(?<operator>\b(?:OR|AND|NOT)\b)|(?<parameter>@[A-Za-z_]\w*)/g;
const lqlMarks = {
  source: Decoration.mark({ class: 'cm-lql-source' }),
  field: Decoration.mark({ class: 'cm-lql-field' }),
  text: Decoration.mark({ class: 'cm-lql-text' }),
  operator: Decoration.mark({ class: 'cm-lql-operator' }),
  parameter: Decoration.mark({ class: 'cm-lql-parameter' }),
};
const lqlDecorator = new MatchDecorator({
  regexp: LQL_TOKENS,
  decoration: (match) => lqlMarks[(Object.keys(lqlMarks) as Array<keyof typeof lqlMarks>).find((name) => match.groups?.[name] !== undefined) ?? 'text'],
});
const lqlHighlighting = ViewPlugin.define(
  (view) => ({
    decorations: lqlDecorator.createDeco(view),
    update(update: ViewUpdate) {
      this.decorations = lqlDecorator.updateDeco(update, this.decorations);
    },
  }),
  { decorations: (plugin) => plugin.decorations },
);

/** Where the service said a query is wrong: 1-based, as its messages give them. */
export interface SqlErrorPosition {
  line: number;
  column: number;
  message: string;
}

/** Marks a document change that came from outside (a loaded endpoint), not from the person typing. */
const fromOutside = Annotation.define<boolean>();
const setErrorMark = StateEffect.define<SqlErrorPosition | null>();

/** The token the error points at: from its column to the end of the word there (at least one character). */
function errorRange(state: EditorState, position: SqlErrorPosition): { line: number; from: number; to: number } | null {
  if (position.line < 1 || position.line > state.doc.lines) return null;
  const line = state.doc.line(position.line);
  const from = Math.min(line.from + Math.max(position.column - 1, 0), line.to);
  const word = /^[\w`@.]+/.exec(state.sliceDoc(from, line.to))?.[0].length ?? 0;
  return { line: line.from, from, to: Math.min(Math.max(from + word, from + 1), line.to) };
}

/** The error's line and token, drawn until the document changes or another error replaces it. */
const errorMarks = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, transaction) {
    for (const effect of transaction.effects) {
      if (!effect.is(setErrorMark)) continue;
      const range = effect.value && errorRange(transaction.state, effect.value);
      if (!range) return Decoration.none;
      const title = effect.value!.message;
      const decorations = [Decoration.line({ class: 'cm-error-line', attributes: { title } }).range(range.line)];
      if (range.to > range.from) decorations.push(Decoration.mark({ class: 'cm-error-mark', attributes: { title } }).range(range.from, range.to));
      return Decoration.set(decorations);
    }
    // Once the text is edited the position no longer says anything.
    return transaction.docChanged ? Decoration.none : marks;
  },
  provide: (field) => EditorView.decorations.from(field),
});

/** Highlighting for the language, with the source names as completions in SQL. */
const languageSupport = (language: QueryLanguage, tables: string[]) =>
  language === 'lql'
    ? lqlHighlighting
    : sql({ dialect: language === 'ch_sql' ? ClickHouseSql : BigQuerySql, upperCaseKeywords: false, schema: Object.fromEntries(tables.map((name) => [name, []])) });

/**
 * A SQL editor that owns its document. Typing never waits for the page: the parent hears every
 * change through `onChange`, and `value` replaces the document only when it is not one of the
 * editor's own reports coming back late (a parent renders behind a fast typist; writing that
 * older text back would undo keys already typed).
 */
export function SqlEditor({
  value,
  onChange,
  onRun,
  tables,
  error,
  language: queryLanguage = 'bq_sql',
}: {
  value: string;
  onChange: (value: string) => void;
  /** Ctrl/⌘-Enter, with the document as it is now (the parent's copy may be a key behind). */
  onRun?: (text: string) => void;
  tables?: string[];
  error?: SqlErrorPosition | null;
  language?: QueryLanguage;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const language = useRef(new Compartment());
  /** Documents reported to the parent that it has not yet handed back as `value`, oldest first. */
  const unechoed = useRef<string[]>([]);
  // Callbacks change on every render; the editor is built once and reads the latest through refs.
  const changed = useRef(onChange);
  const run = useRef(onRun);
  changed.current = onChange;
  run.current = onRun;

  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      doc: value,
      extensions: [
        keymap.of([{ key: 'Mod-Enter', run: (editor) => (run.current?.(editor.state.doc.toString()), true) }]),
        basicSetup,
        EditorView.lineWrapping,
        language.current.of(languageSupport(queryLanguage, tables ?? [])),
        errorMarks,
        EditorView.updateListener.of((update) => {
          if (!update.docChanged || update.transactions.some((transaction) => transaction.annotation(fromOutside))) return;
          const text = update.state.doc.toString();
          const pending = unechoed.current;
          pending.push(text);
          // A parent that never renders again must not make this grow without bound.
          if (pending.length > 1000) pending.splice(0, pending.length - 1000);
          changed.current(text);
        }),
        EditorView.theme({ '&': { fontSize: '13px' }, '.cm-content': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace' } }),
      ],
    });
    view.current = editor;
    return () => editor.destroy();
  }, []);

  // New table names or another language change the highlighting, not the editor: rebuilding it would drop focus and keys.
  const tableKey = (tables ?? []).join('\n');
  useEffect(() => {
    view.current?.dispatch({ effects: language.current.reconfigure(languageSupport(queryLanguage, tables ?? [])) });
  }, [tableKey, queryLanguage]);

  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const pending = unechoed.current;
    const echoed = pending.lastIndexOf(value);
    if (echoed !== -1) {
      // The parent caught up to (at least) this report: it is not a change from outside.
      pending.splice(0, echoed + 1);
      return;
    }
    if (editor.state.doc.toString() === value) return;
    pending.length = 0;
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value }, annotations: fromOutside.of(true) });
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({ effects: setErrorMark.of(error ?? null) });
  }, [error]);

  return <div class="sql-editor" ref={host} data-testid="sql-editor" data-language={queryLanguage} />;
}
