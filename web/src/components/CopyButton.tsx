import { useEffect, useState } from 'react';

async function copyText(value: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(value);
    return true;
  } catch {
    // The Clipboard API needs a secure context; a self-hosted dashboard may be served over plain HTTP.
    const area = document.createElement('textarea');
    area.value = value;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    const copied = document.execCommand('copy');
    area.remove();
    return copied;
  }
}

/** Copies `value`; `label` names what is copied for screen readers ("Copy value of …"). */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');

  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(timer);
  }, [state]);

  const word = state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy';
  return (
    <button
      type="button"
      className="button button-small"
      // The name holds the words shown (voice control says what it sees): "Copied: Copy the link…".
      aria-label={state === 'idle' ? label : `${word}: ${label}`}
      onClick={async () => setState((await copyText(value)) ? 'copied' : 'failed')}
    >
      <span aria-hidden="true">{word}</span>
      <span className="visually-hidden" aria-live="polite">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : ''}
      </span>
    </button>
  );
}
