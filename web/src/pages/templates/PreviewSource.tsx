import { useId, useState } from 'react';
import type { Contact } from '../../../../src/api.js';
import { useContactsPage } from '../../api/contacts.js';
import { errorMessage } from '../../api/errors.js';
import { useDebounced } from './useDebounced.js';

export type PreviewSourceChoice = { kind: 'sample' } | { kind: 'contact'; contact: Contact | null };

/** Whom the preview renders for: a contact of the project, found by email, or sample data typed as JSON. */
export function PreviewSource({
  projectId,
  choice,
  onChoice,
  sampleText,
  onSampleText,
  sampleError,
}: {
  projectId: string;
  choice: PreviewSourceChoice;
  onChoice: (choice: PreviewSourceChoice) => void;
  sampleText: string;
  onSampleText: (text: string) => void;
  sampleError: string | null;
}) {
  const name = useId();
  const sampleId = useId();
  return (
    <section className="card stack preview-source" aria-labelledby={`${name}-title`}>
      <fieldset className="plain-fieldset">
        <legend id={`${name}-title`} className="section-legend">
          Preview as
        </legend>
        <div className="radio-row">
          <label>
            <input
              type="radio"
              name={name}
              checked={choice.kind === 'sample'}
              onChange={() => onChoice({ kind: 'sample' })}
            />
            Sample data
          </label>
          <label>
            <input
              type="radio"
              name={name}
              checked={choice.kind === 'contact'}
              onChange={() => onChoice({ kind: 'contact', contact: null })}
            />
            A contact
          </label>
        </div>
      </fieldset>
      {choice.kind === 'sample' ? (
        <div className="field">
          <label htmlFor={sampleId}>Sample data (JSON)</label>
          <textarea
            id={sampleId}
            className="code-textarea"
            rows={5}
            value={sampleText}
            onChange={(e) => onSampleText(e.target.value)}
            spellCheck={false}
            aria-invalid={sampleError ? true : undefined}
            aria-describedby={`${sampleId}-hint${sampleError ? ` ${sampleId}-error` : ''}`}
          />
          <p id={`${sampleId}-hint`} className="field-hint">
            The contact’s data fields, such as <code>{'{"firstName": "Ada", "plan": "pro"}'}</code>.
          </p>
          {sampleError && (
            <p id={`${sampleId}-error`} className="field-error">
              {sampleError}. Not used until it is fixed.
            </p>
          )}
        </div>
      ) : (
        <ContactPicker
          projectId={projectId}
          chosen={choice.contact}
          onChoose={(contact) => onChoice({ kind: 'contact', contact })}
        />
      )}
    </section>
  );
}

function ContactPicker({
  projectId,
  chosen,
  onChoose,
}: {
  projectId: string;
  chosen: Contact | null;
  onChoose: (contact: Contact) => void;
}) {
  const id = useId();
  const [text, setText] = useState('');
  const search = useDebounced(text.trim(), 300);
  const page = useContactsPage(projectId, { limit: 10, search: search || undefined });
  const contacts = page.data?.data ?? [];

  return (
    <div className="stack contact-picker">
      <p className="small" aria-live="polite">
        {chosen ? (
          <>
            Showing the email as <strong>{chosen.email}</strong> would receive it.
          </>
        ) : (
          'Choose a contact below.'
        )}
      </p>
      <div className="field">
        <label htmlFor={id}>Find a contact by email</label>
        <input
          id={id}
          type="search"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="name@example.com"
          autoComplete="off"
          spellCheck={false}
          aria-controls={`${id}-results`}
        />
      </div>
      <div id={`${id}-results`} aria-busy={page.isFetching || undefined}>
        {page.isError ? (
          <p className="field-error">{errorMessage(page.error)}</p>
        ) : page.isPending ? (
          <p className="muted small">Searching…</p>
        ) : contacts.length === 0 ? (
          <p className="muted small">{search ? 'No contact matches.' : 'The project has no contacts yet.'}</p>
        ) : (
          <ul className="contact-results">
            {contacts.map((c) => (
              <li key={c.id}>
                <button
                  type="button"
                  className="contact-result"
                  aria-pressed={chosen?.id === c.id}
                  onClick={() => onChoose(c)}
                >
                  {c.email}
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
