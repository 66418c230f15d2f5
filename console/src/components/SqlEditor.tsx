import { sql, SQLDialect, StandardSQL } from '@codemirror/lang-sql';
import { Annotation, Compartment, StateEffect, StateField, type EditorState } from '@codemirror/state';
import { Decoration, type DecorationSet, keymap } from '@codemirror/view';
import { EditorView, basicSetup } from 'codemirror';
import { useEffect, useRef } from 'preact/hooks';

/** BigQuery's lexical rules as far as highlighting goes: backtick identifiers and @parameters. */
const BigQuerySql = SQLDialect.define({ ...StandardSQL.spec, identifierQuotes: '`', specialVar: '@', hashComments: true });

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

const completionsFor = (tables: string[]) => sql({ dialect: BigQuerySql, upperCaseKeywords: false, schema: Object.fromEntries(tables.map((name) => [name, []])) });

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
}: {
  value: string;
  onChange: (value: string) => void;
  /** Ctrl/⌘-Enter, with the document as it is now (the parent's copy may be a key behind). */
  onRun?: (text: string) => void;
  tables?: string[];
  error?: SqlErrorPosition | null;
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
        language.current.of(completionsFor(tables ?? [])),
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

  // New table names change the completions, not the editor: rebuilding it would drop focus and keys.
  const tableKey = (tables ?? []).join('\n');
  useEffect(() => {
    view.current?.dispatch({ effects: language.current.reconfigure(completionsFor(tables ?? [])) });
  }, [tableKey]);

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

  return <div class="sql-editor" ref={host} data-testid="sql-editor" />;
}
