import { useEffect, useId, useRef, useState } from 'react';
import type { Template, Version, VersionSummary } from '../../../../src/api.js';
import { errorMessage } from '../../api/errors.js';
import { usePreview, useRestoreVersion, useTemplateVersion, useTemplateVersions } from '../../api/templates.js';
import { Alert, RetryAlert } from '../../components/Alert.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { Segmented } from '../../components/Segmented.js';
import { formatDateTime } from '../../format/dates.js';
import { PreviewPanel } from './PreviewPanel.js';
import { TYPE_LABELS } from './template-list.js';
import {
  authorWords,
  bodyDiff,
  type DiffLine,
  type DiffPart,
  FIELD_LABELS,
  subjectDiff,
  versionSentence,
} from './version-diff.js';
import './history.css';

type View = 'changes' | 'preview';

/**
 * The template's saved versions, newest first: who saved each, when and what it changed. One of
 * them is shown against the current version (a diff of subject and body) or rendered, and can be
 * restored, which saves its content as a new version.
 */
export function TemplateHistory({
  projectId,
  template,
  unsaved,
  onRestored,
  onClose,
}: {
  projectId: string;
  /** The template as last saved. */
  template: Template;
  /** Whether the editor holds changes not saved: a restore replaces them. */
  unsaved: boolean;
  onRestored: (restored: Template, from: number) => void;
  onClose: () => void;
}) {
  const versions = useTemplateVersions(projectId, template.id);
  const [chosen, setChosen] = useState<number | null>(null);
  const titleId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  // Opening the panel takes the reader to it.
  useEffect(() => heading.current?.focus(), []);

  const items = versions.data?.pages.flatMap((p) => p.data) ?? [];
  // The version before the current one, until another is chosen: what the last save changed.
  const selected = chosen ?? items.find((v) => v.n !== template.version)?.n ?? template.version;

  return (
    <section className="card history-panel" aria-labelledby={titleId}>
      <div className="history-head">
        <h2 id={titleId} ref={heading} tabIndex={-1}>
          History
        </h2>
        <button type="button" className="button button-small" onClick={onClose}>
          Close history
        </button>
      </div>
      {versions.isPending ? (
        <p className="muted" aria-busy="true">
          Loading versions…
        </p>
      ) : !versions.data ? (
        <RetryAlert error={versions.error} onRetry={() => versions.refetch()} small />
      ) : items.length === 0 ? (
        <p className="muted">No versions yet: the first save makes one.</p>
      ) : (
        <div className="history-layout">
          <div className="stack-tight">
            <p className="muted small">
              {versions.data.pages[0]!.total === 1 ? 'One version' : `${versions.data.pages[0]!.total} versions`},
              newest first.
            </p>
            <ol className="version-list" aria-label="Versions">
              {items.map((v) => (
                <VersionItem
                  key={v.n}
                  version={v}
                  current={v.n === template.version}
                  selected={v.n === selected}
                  onSelect={() => setChosen(v.n)}
                />
              ))}
            </ol>
            {versions.hasNextPage && (
              <button
                type="button"
                className="button button-small"
                disabled={versions.isFetchingNextPage}
                onClick={() => versions.fetchNextPage()}
              >
                {versions.isFetchingNextPage ? 'Loading…' : 'Show older versions'}
              </button>
            )}
            {versions.isFetchNextPageError && <Alert>{errorMessage(versions.error)}</Alert>}
          </div>
          <VersionDetail
            key={selected}
            projectId={projectId}
            template={template}
            n={selected}
            unsaved={unsaved}
            onRestored={(t) => {
              setChosen(null);
              onRestored(t, selected);
            }}
          />
        </div>
      )}
    </section>
  );
}

function VersionItem({
  version: v,
  current,
  selected,
  onSelect,
}: {
  version: VersionSummary;
  current: boolean;
  selected: boolean;
  onSelect: () => void;
}) {
  return (
    <li>
      <button
        type="button"
        className="version-item"
        aria-pressed={selected}
        onClick={onSelect}
        data-testid={`version-${v.n}`}
      >
        <span className="version-title">
          Version {v.n}
          {current && <span className="badge badge-ok">Current</span>}
        </span>
        <span>{versionSentence(v)}</span>
        <span className="muted small">
          {authorWords(v.author)} · <time dateTime={v.createdAt}>{formatDateTime(v.createdAt)}</time>
        </span>
      </button>
    </li>
  );
}

function VersionDetail({
  projectId,
  template,
  n,
  unsaved,
  onRestored,
}: {
  projectId: string;
  template: Template;
  n: number;
  unsaved: boolean;
  onRestored: (t: Template) => void;
}) {
  const version = useTemplateVersion(projectId, template.id, n);
  const [view, setView] = useState<View>('changes');
  const [confirming, setConfirming] = useState(false);
  const restore = useRestoreVersion(projectId, template.id);
  const titleId = useId();
  const current = n === template.version;

  return (
    <section
      className="stack-tight version-detail"
      aria-labelledby={titleId}
      aria-busy={version.isPending || undefined}
    >
      <div className="history-head">
        <h3 id={titleId}>
          Version {n}
          {current ? ' (current)' : ''}
        </h3>
        {!current && (
          <button
            type="button"
            className="button button-primary button-small"
            disabled={!version.data}
            onClick={() => setConfirming(true)}
          >
            Restore this version
          </button>
        )}
      </div>
      <Segmented
        legend="Show"
        value={view}
        options={[
          { value: 'changes', label: current ? 'Content' : 'Changes' },
          { value: 'preview', label: 'Preview' },
        ]}
        onChange={setView}
      />
      {version.isPending ? (
        <p className="muted">Loading version {n}…</p>
      ) : version.isError ? (
        <RetryAlert error={version.error} onRetry={() => version.refetch()} small />
      ) : view === 'preview' ? (
        <VersionPreview projectId={projectId} version={version.data} />
      ) : current ? (
        <p className="muted">This is the template as it is now. Choose an older version to compare it.</p>
      ) : (
        <VersionChanges version={version.data} template={template} />
      )}
      <ConfirmDialog
        open={confirming}
        title={`Restore version ${n}?`}
        onClose={() => setConfirming(false)}
        mutation={restore}
        tone="primary"
        confirmLabel="Restore"
        pendingLabel="Restoring…"
        onConfirm={() =>
          restore.mutate(n, {
            onSuccess: (t) => {
              setConfirming(false);
              onRestored(t);
            },
          })
        }
      >
        <p>
          The template gets the content of version {n} again, saved as version {template.version + 1}. Every version
          stays in the history.
        </p>
        {unsaved && <p className="notice">Your unsaved changes in the editor are replaced.</p>}
      </ConfirmDialog>
    </section>
  );
}

/** What differs between this version and the current one: subject and body in full, the rest by field. */
function VersionChanges({ version, template }: { version: Version; template: Template }) {
  const subject = subjectDiff(version.subject, template.subject);
  const body = bodyDiff(version.body, template.body);
  const others = (['name', 'from', 'fromName', 'replyTo', 'type', 'description'] as const).filter(
    (f) => (version[f] ?? null) !== (template[f] ?? null),
  );
  const shown = (f: (typeof others)[number], v: Version | Template) =>
    f === 'type' ? TYPE_LABELS[v.type] : (v[f] ?? '(none)');
  const legend = `Compared with the current version ${template.version}: removed text was in version ${version.n} only, added text is in the current version only.`;

  return (
    <div className="stack-tight version-changes">
      <p className="muted small">{legend}</p>
      <h4>Subject</h4>
      {subject.every((p) => p.kind === 'same') ? (
        <p className="muted small">Same as now.</p>
      ) : (
        <p className="diff-subject" data-testid="subject-diff">
          {subject.map((p, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a diff's parts have no identity but their place
            <DiffText key={i} part={p} />
          ))}
        </p>
      )}
      <h4>Body</h4>
      {body.length === 0 ? (
        <p className="muted small">Same as now.</p>
      ) : (
        <ol className="diff-body" data-testid="body-diff" aria-label="Body changes, line by line">
          {body.map((line, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a diff's lines have no identity but their place
            <DiffLineItem key={i} line={line} />
          ))}
        </ol>
      )}
      {others.length > 0 && (
        <>
          <h4>Other fields</h4>
          <dl className="diff-fields">
            {others.map((f) => (
              <div key={f}>
                <dt>{FIELD_LABELS[f]}</dt>
                <dd>
                  <del>{shown(f, version)}</del> → <ins>{shown(f, template)}</ins>
                </dd>
              </div>
            ))}
          </dl>
        </>
      )}
    </div>
  );
}

function DiffLineItem({ line }: { line: DiffLine }) {
  if (line.kind === 'fold') {
    return <li className="diff-fold">{line.count === 1 ? '1 unchanged line' : `${line.count} unchanged lines`}</li>;
  }
  return (
    <li className={`diff-line diff-${line.kind}`}>
      <span className="diff-mark" aria-hidden="true">
        {line.kind === 'added' ? '+' : line.kind === 'removed' ? '−' : ' '}
      </span>
      {line.kind !== 'same' && (
        <span className="visually-hidden">{line.kind === 'added' ? 'Added: ' : 'Removed: '}</span>
      )}
      <code>{line.text || ' '}</code>
    </li>
  );
}

function DiffText({ part }: { part: DiffPart }) {
  if (part.kind === 'same') return <span>{part.text}</span>;
  const Tag = part.kind === 'added' ? 'ins' : 'del';
  return (
    <Tag>
      <span className="visually-hidden">{part.kind === 'added' ? '[added: ' : '[removed: '}</span>
      {part.text}
      <span className="visually-hidden">]</span>
    </Tag>
  );
}

/** The version rendered with sample data, in the same sandboxed frame as the editor's preview. */
function VersionPreview({ projectId, version }: { projectId: string; version: Version }) {
  const preview = usePreview(projectId, { subject: version.subject, body: version.body, type: version.type, data: {} });
  return (
    <PreviewPanel
      preview={preview.data}
      updating={preview.isFetching}
      problem={preview.error ? `The preview failed: ${errorMessage(preview.error)}` : null}
      empty={null}
      frameTitle={`Preview of version ${version.n}`}
    />
  );
}
