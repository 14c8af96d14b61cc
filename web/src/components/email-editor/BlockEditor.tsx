import { EmailEditor, type EmailEditorRef } from '@react-email/editor';
import { composeReactEmail } from '@react-email/editor/core';
import { type FocusScopesStorage, StarterKit } from '@react-email/editor/extensions';
import { EmailTheming } from '@react-email/editor/plugins';
import { EditorFocusScope, FocusScopeContext } from '@react-email/editor/ui';
import { useEffect, useId, useMemo, useReducer, useRef, useState } from 'react';
import { Segmented, WIDTH_OPTIONS } from '../Segmented.js';
import { BlockSettings } from './BlockSettings.js';
import { CUSTOM_BLOCKS } from './blocks.js';
import {
  type BlockSource,
  blockSource,
  type DocNode,
  protectLiquid,
  readBlockSource,
  restoreLiquid,
} from './liquid.js';
import './block-editor.css';

export type Editor = NonNullable<EmailEditorRef['editor']>;

/** A contact data field the Field and Condition blocks offer (from GET /contacts/fields). */
export interface BlockField {
  key: string;
  type: string;
}

export interface BlockEditorProps {
  /** The stored `bodySource`; null (or a document of another editor) starts from `initialHtml`. */
  source: unknown | null;
  /** What to start from without a document: HTML the editor reads as far as blocks can show it. */
  initialHtml?: string;
  /** Each change: the email's HTML (Liquid intact) and the document to store as `bodySource`. */
  onChange: (next: { html: string; source: BlockSource }) => void;
  fields: readonly BlockField[];
  /** Stores an image and answers its public address (POST /uploads). */
  onUploadImage: (file: File) => Promise<{ url: string }>;
}

/** The document ready for the email renderer, and the Liquid put back into what it renders. */
export async function emailHtml(editor: Editor): Promise<string> {
  const document = protectLiquid(editor.getJSON() as DocNode);
  // The renderer reads the document through `getJSON`; everything else is the live editor's.
  const view: Editor = Object.create(editor);
  view.getJSON = () => document as ReturnType<Editor['getJSON']>;
  // Unformatted: the formatter's indentation only adds bytes, and could split text around a field.
  return restoreLiquid((await composeReactEmail({ editor: view })).unformattedHtml);
}

const focusScopeOf = (editor: Editor) =>
  (editor as unknown as { extensionStorage?: { focusScope?: FocusScopesStorage } }).extensionStorage?.focusScope ??
  null;

/**
 * The block editor for email bodies: headings, text, images, buttons, dividers, columns, spacers,
 * social links, a footer, contact fields and conditions, with alignment and colours. It produces
 * email-safe HTML whose Liquid is exactly as written, and the document to keep beside it.
 */
export default function BlockEditor({ source, initialHtml, onChange, fields, onUploadImage }: BlockEditorProps) {
  const [editor, setEditor] = useState<Editor | null>(null);
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const [width, setWidth] = useState<'desktop' | 'mobile'>('desktop');
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  // The editor is configured once: a new function at each render would reconfigure it mid-edit.
  const uploadRef = useRef(onUploadImage);
  uploadRef.current = onUploadImage;
  const [upload] = useState(() => (file: File) => uploadRef.current(file));
  const ids = { help: useId() };

  // The content is read once: the editor owns the document from then on.
  const [content] = useState(() => readBlockSource(source)?.document ?? initialHtml ?? '');
  const extensions = useMemo(
    () => [StarterKit.configure(), EmailTheming.configure({ theme: 'basic' }), ...CUSTOM_BLOCKS],
    [],
  );

  // Renders run one at a time; edits made during one are rendered once it ends (the last wins).
  const [publish] = useState(() => {
    let rendering = false;
    let pending = false;
    return async (ed: Editor) => {
      if (rendering) {
        pending = true;
        return;
      }
      rendering = true;
      try {
        do {
          pending = false;
          const html = await emailHtml(ed);
          onChangeRef.current({ html, source: blockSource(ed.getJSON() as DocNode, html) });
        } while (pending);
      } finally {
        rendering = false;
      }
    };
  });

  // Made once: re-rendering the editor reconfigures it, and it re-renders the page on each change.
  const canvas = useMemo(
    () => (
      <EmailEditor
        content={content as never}
        extensions={extensions}
        onUploadImage={upload}
        onReady={(ref) => {
          setEditor(ref.editor);
          if (ref.editor) void publish(ref.editor);
        }}
        onUpdate={(ref) => {
          if (ref.editor) void publish(ref.editor);
        }}
      />
    ),
    [content, extensions, upload, publish],
  );

  // Toolbar and settings follow the selection.
  useEffect(() => {
    if (!editor) return;
    editor.on('transaction', rerender);
    // Named and described like the dashboard's other fields (ProseMirror keeps these on its element).
    editor.setOptions({
      editorProps: {
        ...editor.options.editorProps,
        attributes: {
          role: 'textbox',
          'aria-multiline': 'true',
          'aria-label': 'Email body in blocks',
          'aria-describedby': ids.help,
        },
      },
    });
    return () => {
      editor.off('transaction', rerender);
    };
  }, [editor, ids.help]);

  return (
    <div className="block-editor">
      <p id={ids.help} className="field-hint">
        Type <kbd>/</kbd> for blocks, or use the buttons. Fields print the contact’s data; a condition shows its blocks
        only to the contacts it matches.
      </p>
      {editor && (
        // Inside the editor's focus scope, using these controls keeps the selection they act on.
        <FocusScopeContext.Provider value={focusScopeOf(editor)}>
          <EditorFocusScope>
            <div>
              <BlockSettings editor={editor} fields={fields} onUploadImage={upload} />
            </div>
          </EditorFocusScope>
        </FocusScopeContext.Provider>
      )}
      <div className="block-editor-width">
        <Segmented legend="Editing width" value={width} options={WIDTH_OPTIONS} onChange={setWidth} />
      </div>
      <div className={`block-canvas block-canvas-${width}`} data-testid="block-canvas">
        {canvas}
      </div>
    </div>
  );
}
