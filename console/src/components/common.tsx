import { useState } from 'preact/hooks';

export function ErrorBox({ error }: { error: string | null | undefined }) {
  return error ? (
    <div class="error" role="alert">
      {error}
    </div>
  ) : null;
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

export function JsonView({ value, onClose }: { value: unknown; onClose?: () => void }) {
  const text = JSON.stringify(value, null, 2);
  return (
    <div class="json-view" data-testid="event-json">
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
      <pre>{text}</pre>
    </div>
  );
}
