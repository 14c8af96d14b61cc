import { CopyButton } from '../../components/CopyButton.js';

/** A signing secret just made, with how receivers use it. */
export function SecretView({ secret }: { secret: string }) {
  return (
    <div className="stack">
      <div className="key-row">
        <span className="key-label">Signing secret</span>
        <code className="key-value">{secret}</code>
        <CopyButton value={secret} label="Copy signing secret" />
      </div>
      <p className="muted small">
        Give it to the receiver: each delivery carries <code>webhook-id</code>, <code>webhook-timestamp</code> and{' '}
        <code>webhook-signature</code> headers (Standard Webhooks, HMAC-SHA256) to check that it came from here.
      </p>
    </div>
  );
}
