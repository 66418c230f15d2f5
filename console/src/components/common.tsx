import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { filterClause } from '../event-view.ts';

export function ErrorBox({ error }: { error: string | null | undefined }) {
  return error ? (
    <div class="error" role="alert">
      {error}
    </div>
  ) : null;
}

/** A dotted or dashed name (`shop.web.requests`) that a narrow column may break after its dots and dashes. */
export function BreakableName({ name }: { name: string }) {
  const parts = name.split(/(?<=[.\-_])/);
  return <>{parts.map((part, index) => (index === 0 ? part : [<wbr key={index} />, part]))}</>;
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Without clipboard permission (plain http on another host), select-and-copy still works.
      window.prompt('Copy this:', text);
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 1200);
  };
  return (
    <button type="button" class="small" onClick={copy} title={text}>
      {copied ? 'Copied' : label}
    </button>
  );
}

export function CopyField({ text }: { text: string }) {
  return (
    <span class="copy-field">
      <code>{text}</code>
      <CopyButton text={text} />
    </span>
  );
}

/** Fields whose values make no useful filter (the text search and the time range cover them). */
const UNFILTERED = new Set(['timestamp', 'event_message']);

/**
 * JSON laid out as JSON.stringify(value, null, 2) would, with every scalar field a button that
 * filters on it: the text of the block stays valid JSON to copy.
 */
function jsonNodes(value: unknown, path: string[], indent: string, onFilter?: (clause: string) => void): ComponentChildren {
  if (Array.isArray(value) || (typeof value === 'object' && value !== null)) {
    const array = Array.isArray(value);
    const entries: Array<[string | null, unknown]> = array ? value.map((item) => [null, item]) : Object.entries(value);
    if (entries.length === 0) return array ? '[]' : '{}';
    const inner = `${indent}  `;
    return [
      array ? '[\n' : '{\n',
      ...entries.map(([name, item], index) => [
        inner,
        name === null ? '' : `${JSON.stringify(name)}: `,
        // Elements of a list share the list's path: a filter on it matches any element.
        jsonNodes(item, name === null ? path : [...path, name], inner, onFilter),
        index < entries.length - 1 ? ',\n' : '\n',
      ]),
      indent,
      array ? ']' : '}',
    ];
  }
  const text = JSON.stringify(value);
  if (!onFilter || path.length === 0 || value === null || (path.length === 1 && UNFILTERED.has(path[0]!))) return text;
  const clause = filterClause(path, value);
  return (
    <button type="button" class="json-leaf" title={`filter: ${clause}`} onClick={() => onFilter(clause)}>
      {text}
    </button>
  );
}

export function JsonView({ value, onClose, onFilter }: { value: unknown; onClose?: () => void; onFilter?: (clause: string) => void }) {
  const text = JSON.stringify(value, null, 2);
  // On a narrow screen the view opens below the list: bring it into sight.
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => box.current?.scrollIntoView({ block: 'nearest' }), [value]);
  return (
    <div class="json-view" data-testid="event-json" ref={box}>
      <div class="json-view-bar">
        <strong>Event</strong>
        <span class="spacer" />
        <CopyButton text={text} label="Copy JSON" />
        {onClose && (
          <button type="button" class="small" onClick={onClose}>
            Close
          </button>
        )}
      </div>
      <pre>{jsonNodes(value, [], '', onFilter)}</pre>
    </div>
  );
}
