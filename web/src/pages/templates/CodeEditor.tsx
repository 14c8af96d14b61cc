import { autocompletion, type Completion } from '@codemirror/autocomplete';
import { closePercentBrace, liquid } from '@codemirror/lang-liquid';
import { bracketMatching, syntaxHighlighting } from '@codemirror/language';
import { Compartment, EditorState } from '@codemirror/state';
import {
  Decoration,
  dropCursor,
  highlightActiveLine,
  highlightActiveLineGutter,
  lineNumbers,
  placeholder,
} from '@codemirror/view';
import { classHighlighter } from '@lezer/highlight';
import { EditorView, minimalSetup } from 'codemirror';
import { type RefObject, useEffect, useRef } from 'react';

/** What the page can do to the editor besides setting its text. */
export interface CodeEditorHandle {
  /** Replaces the selection (the cursor, or where an image was dropped) with `text`. */
  insert(text: string): void;
  focus(): void;
}

export interface TemplateVariables {
  /** Top-level names: the contact's data fields and the service's own (`email`, `unsubscribeUrl`). */
  variables: readonly Completion[];
  /** Keys offered after `data.`. */
  dataKeys: readonly Completion[];
}

interface CodeEditorProps {
  value: string;
  onChange: (value: string) => void;
  labelledBy: string;
  describedBy?: string;
  invalid?: boolean;
  /** A line to mark (a render error's), counted from 1. */
  errorLine?: number | null;
  completions: TemplateVariables;
  /** An image dropped or pasted into the editor; the cursor is already where it goes. */
  onImage?: (file: File) => void;
  handle?: RefObject<CodeEditorHandle | null>;
}

const errorLineMark = Decoration.line({ class: 'cm-line-error' });

function errorLineExtension(line: number | null | undefined) {
  if (!line) return [];
  return EditorView.decorations.of((view) => {
    if (line > view.state.doc.lines) return Decoration.none;
    return Decoration.set([errorLineMark.range(view.state.doc.line(line).from)]);
  });
}

function languageExtension({ variables, dataKeys }: TemplateVariables) {
  return liquid({
    variables,
    properties: (path) => (path.length === 1 && path[0] === 'data' ? dataKeys : []),
  });
}

function ariaExtension(labelledBy: string, describedBy: string | undefined, invalid: boolean | undefined) {
  return EditorView.contentAttributes.of({
    'aria-labelledby': labelledBy,
    ...(describedBy ? { 'aria-describedby': describedBy } : {}),
    ...(invalid ? { 'aria-invalid': 'true' } : {}),
  });
}

const imageOf = (files: FileList | undefined | null) =>
  files ? Array.from(files).find((f) => f.type.startsWith('image/')) : undefined;

/**
 * CodeMirror 6 for HTML with Liquid: highlighting by token classes (styled in styles.css, so dark
 * mode is the same token swap as the rest), completions of Liquid tags, filters and the contact's
 * fields, a marked error line, and images taken from drops and pastes. Tab is left to move focus.
 */
export default function CodeEditor(props: CodeEditorProps) {
  const parent = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latest = useRef(props);
  latest.current = props;
  const compartments = useRef({ language: new Compartment(), error: new Compartment(), aria: new Compartment() });

  // Made once; later props reach the editor through the effects below.
  useEffect(() => {
    const c = compartments.current;
    const p = latest.current;
    const editor = new EditorView({
      parent: parent.current!,
      state: EditorState.create({
        doc: p.value,
        extensions: [
          minimalSetup,
          lineNumbers(),
          highlightActiveLine(),
          highlightActiveLineGutter(),
          dropCursor(),
          bracketMatching(),
          closePercentBrace,
          autocompletion({ icons: false }),
          syntaxHighlighting(classHighlighter),
          EditorView.lineWrapping,
          placeholder('<p>Hello {{ firstName ?? "there" }}</p>'),
          c.language.of(languageExtension(p.completions)),
          c.error.of(errorLineExtension(p.errorLine)),
          c.aria.of(ariaExtension(p.labelledBy, p.describedBy, p.invalid)),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) latest.current.onChange(update.state.doc.toString());
          }),
          EditorView.domEventHandlers({
            drop(event, v) {
              const file = imageOf(event.dataTransfer?.files);
              if (!file || !latest.current.onImage) return false;
              event.preventDefault();
              const pos = v.posAtCoords({ x: event.clientX, y: event.clientY }) ?? v.state.selection.main.head;
              v.dispatch({ selection: { anchor: pos } });
              latest.current.onImage(file);
              return true;
            },
            paste(event) {
              const file = imageOf(event.clipboardData?.files);
              if (!file || !latest.current.onImage) return false;
              event.preventDefault();
              latest.current.onImage(file);
              return true;
            },
          }),
        ],
      }),
    });
    view.current = editor;
    if (p.handle) {
      p.handle.current = {
        insert: (text) => {
          editor.dispatch(editor.state.replaceSelection(text), { scrollIntoView: true });
          editor.focus();
        },
        focus: () => editor.focus(),
      };
    }
    return () => {
      editor.destroy();
      view.current = null;
    };
  }, []);

  // The text changes from outside when a template loads or a save answers with what was stored.
  useEffect(() => {
    const editor = view.current;
    if (!editor || editor.state.doc.toString() === props.value) return;
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: props.value } });
  }, [props.value]);

  useEffect(() => {
    view.current?.dispatch({
      effects: compartments.current.language.reconfigure(languageExtension(props.completions)),
    });
  }, [props.completions]);

  useEffect(() => {
    view.current?.dispatch({ effects: compartments.current.error.reconfigure(errorLineExtension(props.errorLine)) });
  }, [props.errorLine]);

  useEffect(() => {
    view.current?.dispatch({
      effects: compartments.current.aria.reconfigure(ariaExtension(props.labelledBy, props.describedBy, props.invalid)),
    });
  }, [props.labelledBy, props.describedBy, props.invalid]);

  return <div ref={parent} className={props.invalid ? 'code-editor is-invalid' : 'code-editor'} />;
}
