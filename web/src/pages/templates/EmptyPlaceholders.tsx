import { useMemo } from 'react';
import type { Contact } from '../../../../src/api.js';
import { templateScope } from '../../../../src/domain/render.js';
import { useMe } from '../../api/auth.js';
import { useContactsPage } from '../../api/contacts.js';
import { type EmptyPlaceholder, emptyPlaceholders } from './empty-placeholders.js';
import type { PreviewSourceChoice } from './PreviewSource.js';

// The links a template may print are never empty; their values do not matter for what is.
const PREVIEW_URLS = { unsubscribeUrl: '#', subscribeUrl: '#', manageUrl: '#' };

/** The project's newest contact, whom the preview shows by default: undefined while asked, null when there is none. */
export function useNewestContact(projectId: string): Contact | null | undefined {
  const latest = useContactsPage(projectId, { limit: 1, sort: 'createdAt', dir: 'desc' });
  if (latest.isPending) return undefined;
  return latest.data?.data[0] ?? null;
}

/** The placeholders of `content` that print nothing for the previewed recipient, and who that is in words. */
export function useEmptyPlaceholders(
  content: { subject: string; body: string; data: Record<string, unknown> },
  source: PreviewSourceChoice | null,
): { empty: EmptyPlaceholder[]; emptyFor: string | null } {
  const me = useMe();
  const empty = useMemo(() => {
    const recipient =
      source?.kind === 'contact'
        ? source.contact
        : source && { id: '', email: me.data?.email ?? 'test@example.com', data: content.data };
    return recipient ? emptyPlaceholders(content, templateScope(recipient, {}, PREVIEW_URLS)) : [];
  }, [content, source, me.data]);
  const emptyFor =
    source?.kind === 'contact' ? (source.contact?.email ?? null) : source?.kind === 'sample' ? 'the sample data' : null;
  return { empty, emptyFor };
}

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
