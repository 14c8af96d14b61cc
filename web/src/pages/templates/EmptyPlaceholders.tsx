import type { EmptyPlaceholder } from './empty-placeholders.js';

/** The placeholders that print nothing for `recipient`, and how to give each a default. */
export function EmptyPlaceholders({
  placeholders,
  recipient,
}: {
  placeholders: EmptyPlaceholder[];
  recipient: string;
}) {
  if (placeholders.length === 0) {
    return <p className="muted small">{`Every placeholder prints something for ${recipient}.`}</p>;
  }
  const first = placeholders[0]!.name;
  return (
    <div className="notice stack-tight empty-placeholders" role="status">
      <p>
        {`${placeholders.length === 1 ? 'This placeholder prints' : 'These placeholders print'} nothing for ${recipient}:`}
      </p>
      <ul aria-label="Placeholders that print nothing">
        {placeholders.map((p) => (
          <li key={p.name}>
            <code>{`{{ ${p.name} }}`}</code>
            {p.parts.length === 1 && p.parts[0] === 'subject' ? ' (subject)' : ''}
          </li>
        ))}
      </ul>
      <p className="small">
        Give one a default for contacts without it, as in <code>{`{{ ${first} ?? "…" }}`}</code>.
      </p>
    </div>
  );
}
