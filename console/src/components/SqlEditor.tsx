import { sql, SQLDialect, StandardSQL } from '@codemirror/lang-sql';
import { EditorView, basicSetup } from 'codemirror';
import { keymap } from '@codemirror/view';
import { useEffect, useRef } from 'preact/hooks';

/** BigQuery's lexical rules as far as highlighting goes: backtick identifiers and @parameters. */
const BigQuerySql = SQLDialect.define({ ...StandardSQL.spec, identifierQuotes: '`', specialVar: '@', hashComments: true });

export function SqlEditor({ value, onChange, onRun, tables }: { value: string; onChange: (value: string) => void; onRun?: () => void; tables?: string[] }) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
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
        keymap.of([{ key: 'Mod-Enter', run: () => (run.current?.(), true) }]),
        basicSetup,
        EditorView.lineWrapping,
        sql({ dialect: BigQuerySql, upperCaseKeywords: false, schema: Object.fromEntries((tables ?? []).map((name) => [name, []])) }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) changed.current(update.state.doc.toString());
        }),
        EditorView.theme({ '&': { fontSize: '13px' }, '.cm-content': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace' } }),
      ],
    });
    view.current = editor;
    return () => editor.destroy();
  }, [tables?.join('\n')]);

  // A value replaced from outside (another endpoint loaded) replaces the document.
  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value) editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
  }, [value]);

  return <div class="sql-editor" ref={host} data-testid="sql-editor" />;
}
