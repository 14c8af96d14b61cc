import { type ReactNode, useId, useState } from 'react';
import type { Preview } from '../../api/templates.js';
import { Segmented, WIDTH_OPTIONS } from '../../components/Segmented.js';

type View = 'html' | 'text';
type Width = 'desktop' | 'mobile';

/**
 * The rendered email: its subject, and its HTML in a frame that may run nothing and reach nothing
 * of the dashboard (`sandbox=""`: no scripts, an opaque origin) or its plain text.
 */
export function PreviewPanel({
  preview,
  updating,
  problem,
  empty,
  frameTitle = 'Email preview',
}: {
  preview: Preview | undefined;
  updating: boolean;
  /** What prints nothing for the recipient previewed, shown beside the rendering. */
  empty: ReactNode;
  /** Why the latest content is not shown (a render error, a failed request); the last good preview stays. */
  problem: string | null;
  /** The frame's accessible name, unique on the page. */
  frameTitle?: string;
}) {
  const [view, setView] = useState<View>('html');
  const [width, setWidth] = useState<Width>('desktop');
  const titleId = useId();

  return (
    <section className="card preview-panel" aria-labelledby={titleId} aria-busy={updating || undefined}>
      <div className="preview-head">
        <h2 id={titleId}>Preview</h2>
        <span className="muted small" aria-hidden="true">
          {updating ? 'Updating…' : ''}
        </span>
      </div>
      <div className="preview-controls">
        <Segmented
          legend="Show"
          value={view}
          options={[
            { value: 'html', label: 'HTML' },
            { value: 'text', label: 'Text' },
          ]}
          onChange={setView}
        />
        {view === 'html' && <Segmented legend="Width" value={width} options={WIDTH_OPTIONS} onChange={setWidth} />}
      </div>
      {problem && (
        <p className="preview-problem" role="status">
          {problem} The preview shows the last version that rendered.
        </p>
      )}
      {empty}
      {preview ? (
        <>
          <p className="preview-subject">
            <span className="muted">Subject </span>
            <strong data-testid="preview-subject">{preview.subject || '(empty)'}</strong>
          </p>
          {view === 'html' ? (
            <div className={`preview-frame-wrap preview-${width}`}>
              <iframe className="preview-frame" title={frameTitle} sandbox="" srcDoc={preview.html} />
            </div>
          ) : (
            <pre className="text-block" data-testid="preview-text">
              {preview.text}
            </pre>
          )}
        </>
      ) : (
        <p className="muted">{updating ? 'Rendering…' : 'Nothing to show yet.'}</p>
      )}
    </section>
  );
}
