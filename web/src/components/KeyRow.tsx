import { CopyButton } from './CopyButton.js';

/** An API key shown in full, with a button to copy it. */
export function KeyRow({ label, value }: { label: string; value: string }) {
  return (
    <div className="key-row">
      <span className="key-label">{label}</span>
      <code className="key-value">{value}</code>
      <CopyButton value={value} label={`Copy ${label.toLowerCase()}`} />
    </div>
  );
}
