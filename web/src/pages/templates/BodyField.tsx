import { lazy, type RefObject, Suspense, useId, useRef, useState } from 'react';
import { errorMessage } from '../../api/errors.js';
import { Dialog } from '../../components/Dialog.js';
import { DialogActions } from '../../components/DialogActions.js';
import { isStale, readBlockSource } from '../../components/email-editor/liquid.js';
import { ImageFileInput } from '../../components/ImageFileInput.js';
import { Segmented } from '../../components/Segmented.js';
import type { CodeEditorHandle, TemplateVariables } from './CodeEditor.js';

// CodeMirror and the block editor are most of this page's code: the form is usable while they load.
const CodeEditor = lazy(() => import('./CodeEditor.js'));
const BlockEditor = lazy(() => import('../../components/email-editor/BlockEditor.js'));

type Mode = 'blocks' | 'code';

export interface BodyValue {
  body: string;
  bodySource: Record<string, unknown> | null;
}

/**
 * The body, written in blocks or as HTML with Liquid. The blocks' document is stale once the body
 * differs from the HTML the blocks last produced (an edit as code, or through the API); going back
 * to blocks then asks first, and keeps the HTML as it was so it can be restored.
 */
export function BodyField({
  value,
  onChange,
  fields,
  completions,
  bodyError,
  errorLine,
  uploadImage,
  uploading,
  uploadError,
}: {
  value: BodyValue;
  onChange: (next: Partial<BodyValue>) => void;
  fields: { key: string; type: string }[];
  completions: TemplateVariables;
  bodyError?: string;
  errorLine: number | null;
  uploadImage: (file: File) => Promise<{ url: string }>;
  uploading: boolean;
  uploadError: unknown;
}) {
  const source = readBlockSource(value.bodySource);
  const stale = source ? isStale(source, value.body) : false;
  const [mode, setMode] = useState<Mode>(source && !stale ? 'blocks' : 'code');
  const [asking, setAsking] = useState(false);
  /** The HTML as it was before switching to blocks replaced it. */
  const [snapshot, setSnapshot] = useState<string | null>(null);
  /** A new editor for each switch to blocks: it reads its document when it starts. */
  const [session, setSession] = useState(0);
  const code = useRef<CodeEditorHandle | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const ids = { label: useId(), error: useId() };

  const toBlocks = () => {
    setSnapshot(value.body);
    setSession((n) => n + 1);
    setMode('blocks');
    setAsking(false);
  };
  const restore = () => {
    if (snapshot === null) return;
    onChange({ body: snapshot });
    setSnapshot(null);
    setMode('code');
  };
  const insertImage = (file: File) =>
    uploadImage(file).then(
      ({ url }) => code.current?.insert(`<img src="${url}" alt="">`),
      () => undefined,
    );

  return (
    <div className="field body-field">
      <div className="body-label-row">
        <span id={ids.label} className="field-label">
          Body
        </span>
        <Segmented
          legend="Write the body"
          value={mode}
          options={[
            { value: 'blocks', label: 'Blocks' },
            { value: 'code', label: 'HTML code' },
          ]}
          onChange={(next) => {
            if (next === 'code') return setMode('code');
            if (source && !stale) return setMode('blocks');
            setAsking(true);
          }}
        />
        {mode === 'code' && (
          <>
            <button
              type="button"
              className="button button-small"
              onClick={() => fileInput.current?.click()}
              disabled={uploading}
            >
              {uploading ? 'Uploading…' : 'Insert image'}
            </button>
            <ImageFileInput inputRef={fileInput} onFile={(file) => void insertImage(file)} />
          </>
        )}
      </div>

      {snapshot !== null && mode === 'blocks' && (
        <div className="notice body-snapshot" role="status">
          <p>The blocks replaced the HTML. The HTML as it was is kept until you leave this page.</p>
          <div className="body-snapshot-actions">
            <button type="button" className="button button-small" onClick={restore}>
              Restore the HTML
            </button>
            <button type="button" className="button button-small" onClick={() => setSnapshot(null)}>
              Keep the blocks
            </button>
          </div>
        </div>
      )}

      {mode === 'code' ? (
        <>
          <p className="field-hint">
            <code>{'{{ firstName ?? "there" }}'}</code> prints a field with a default; Ctrl+Space lists the contact’s
            fields. Drop or paste an image to upload it.
            {stale && ' The blocks are out of date: this HTML was changed since they were last edited.'}
          </p>
          <Suspense fallback={<div className="code-editor code-editor-loading">Loading the editor…</div>}>
            <CodeEditor
              value={value.body}
              onChange={(body) => onChange({ body })}
              labelledBy={ids.label}
              describedBy={bodyError ? ids.error : undefined}
              invalid={Boolean(bodyError)}
              errorLine={errorLine}
              completions={completions}
              onImage={insertImage}
              handle={code as RefObject<CodeEditorHandle | null>}
            />
          </Suspense>
        </>
      ) : (
        <Suspense fallback={<div className="code-editor code-editor-loading">Loading the block editor…</div>}>
          <BlockEditor
            key={session}
            source={value.bodySource}
            initialHtml={value.body}
            fields={fields}
            onUploadImage={uploadImage}
            onChange={({ html, source: next }) => onChange({ body: html, bodySource: { ...next } })}
          />
        </Suspense>
      )}

      <div aria-live="polite">
        {bodyError && (
          <p id={ids.error} className="field-error render-error">
            {errorLine ? <strong>Line {errorLine}: </strong> : null}
            {bodyError}
          </p>
        )}
        {mode === 'code' && Boolean(uploadError) && (
          <p className="field-error">The image was not uploaded: {errorMessage(uploadError)}</p>
        )}
      </div>

      <Dialog open={asking} title="Switch to blocks?" onClose={() => setAsking(false)}>
        <p>
          {source
            ? 'The HTML was changed after the blocks were last edited. The blocks show their last version, and their HTML replaces the current code.'
            : 'This body was written as HTML. The blocks start from it as far as blocks can show it, and their HTML replaces the current code.'}
        </p>
        <p>The current HTML is kept on this page, so you can restore it.</p>
        <DialogActions
          busy={false}
          label="Switch to blocks"
          busyLabel="Switching…"
          onConfirm={toBlocks}
          onCancel={() => setAsking(false)}
        />
      </Dialog>
    </div>
  );
}
