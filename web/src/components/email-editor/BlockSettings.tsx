import { type ReactNode, useId, useRef, useState } from 'react';
import { Field } from '../Field.js';
import { ImageFileInput } from '../ImageFileInput.js';
import { Segmented } from '../Segmented.js';
import { SelectField, type SelectOption } from '../SelectField.js';
import type { BlockField, Editor } from './BlockEditor.js';
import { SOCIAL_NETWORKS } from './blocks.js';
import { COMPARISONS, type Comparison, type ConditionAttrs } from './liquid.js';

type PmNode = Editor['state']['doc'];
interface Found {
  node: PmNode;
  pos: number;
}

/** Fields every contact has, beside its data fields. */
const SERVICE_FIELDS: BlockField[] = [{ key: 'email', type: 'string' }];

const ALIGNED = new Set(['paragraph', 'heading', 'button', 'image', 'emailFooter', 'socialLinks']);
const COLOURED = new Set(['paragraph', 'heading', 'button', 'emailFooter']);
const BLOCK_NAMES: Record<string, string> = {
  paragraph: 'Text',
  heading: 'Heading',
  button: 'Button',
  image: 'Image',
  horizontalRule: 'Divider',
  spacer: 'Spacer',
  socialLinks: 'Social links',
  emailFooter: 'Footer',
  liquidField: 'Field',
};

/** The selected atom, else the innermost block around the cursor that has settings. */
function currentBlock(editor: Editor): Found | null {
  const { selection } = editor.state;
  const selected = (selection as { node?: PmNode }).node;
  if (selected) return { node: selected, pos: selection.from };
  const { $from } = selection;
  for (let depth = $from.depth; depth > 0; depth--) {
    const node = $from.node(depth);
    if (BLOCK_NAMES[node.type.name]) return { node, pos: $from.before(depth) };
  }
  return null;
}

function conditionAround(editor: Editor): Found | null {
  const { $from } = editor.state.selection;
  for (let depth = $from.depth; depth > 0; depth--) {
    const node = $from.node(depth);
    if (node.type.name === 'liquidCondition') return { node, pos: $from.before(depth) };
  }
  return null;
}

/** Changes attributes of the node at `pos` without moving the focus from the control being used. */
function setAttrs(editor: Editor, found: Found, attrs: Record<string, unknown>) {
  editor.commands.command(({ tr }) => {
    tr.setNodeMarkup(found.pos, undefined, { ...found.node.attrs, ...attrs });
    return true;
  });
}

/** One CSS property of an inline style, read or replaced. */
export function styleValue(style: unknown, prop: string): string {
  const match = new RegExp(`(?:^|;)\\s*${prop}\\s*:\\s*([^;]+)`, 'i').exec(typeof style === 'string' ? style : '');
  return match ? match[1]!.trim() : '';
}
export function withStyle(style: unknown, prop: string, value: string): string {
  const rest = (typeof style === 'string' ? style : '')
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s && !s.toLowerCase().startsWith(`${prop}:`));
  return [...rest, ...(value ? [`${prop}:${value}`] : [])].join(';');
}

/** The insert toolbar and the settings of the block at the cursor. */
export function BlockSettings({
  editor,
  fields,
  onUploadImage,
}: {
  editor: Editor;
  fields: readonly BlockField[];
  onUploadImage: (file: File) => Promise<{ url: string }>;
}) {
  const allFields = [...fields, ...SERVICE_FIELDS];
  const block = currentBlock(editor);
  const condition = conditionAround(editor);
  const fileInput = useRef<HTMLInputElement>(null);
  const [uploadError, setUploadError] = useState<string | null>(null);
  const [uploading, setUploading] = useState(false);
  const chain = () => editor.chain().focus();
  /** Adds a block at the cursor; with a block selected, after it rather than in its place. */
  const insertBlock = (content: Record<string, unknown>) => {
    const { selection } = editor.state;
    // Into the block after the selected one, first: the library refuses any insertion while a divider is selected.
    if ('node' in selection) editor.commands.setTextSelection(selection.to + 1);
    chain().insertContent(content).run();
  };

  const insert: { label: string; run: () => void }[] = [
    {
      label: 'Heading',
      run: () => insertBlock({ type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'Heading' }] }),
    },
    {
      label: 'Text',
      run: () => insertBlock({ type: 'paragraph', content: [{ type: 'text', text: 'Text' }] }),
    },
    { label: 'Image', run: () => fileInput.current?.click() },
    {
      label: 'Button',
      run: () => insertBlock({ type: 'button', content: [{ type: 'text', text: 'Button' }] }),
    },
    { label: 'Divider', run: () => insertBlock({ type: 'horizontalRule' }) },
    { label: 'Columns', run: () => chain().insertColumns(2).run() },
    { label: 'Spacer', run: () => insertBlock({ type: 'spacer' }) },
    { label: 'Social links', run: () => insertBlock({ type: 'socialLinks' }) },
    {
      label: 'Footer',
      run: () =>
        insertBlock({
          type: 'emailFooter',
          content: [{ type: 'text', text: 'You get this email because you signed up.' }],
        }),
    },
  ];

  const upload = async (file: File) => {
    setUploadError(null);
    setUploading(true);
    try {
      const { url } = await onUploadImage(file);
      chain().setImage({ src: url, alt: '' }).run();
    } catch (err) {
      setUploadError(err instanceof Error ? err.message : String(err));
    } finally {
      setUploading(false);
    }
  };

  const type = block?.node.type.name;
  return (
    <div className="block-settings">
      <fieldset className="block-insert">
        <legend className="visually-hidden">Insert a block</legend>
        {insert.map((b) => (
          <button
            key={b.label}
            type="button"
            className="button button-small"
            onClick={b.run}
            disabled={b.label === 'Image' && uploading}
          >
            {b.label === 'Image' && uploading ? 'Uploading…' : b.label}
          </button>
        ))}
        <ImageFileInput inputRef={fileInput} onFile={(file) => void upload(file)} />
      </fieldset>
      {uploadError && (
        <p className="field-error" role="alert">
          The image was not uploaded: {uploadError}
        </p>
      )}
      <PersonaliseRow editor={editor} fields={allFields} inCondition={Boolean(condition)} />

      {(block || condition) && (
        <section className="block-props" aria-label="Block settings">
          {block && type && (
            <Props title={BLOCK_NAMES[type] ?? type}>
              {ALIGNED.has(type) && (
                <Segmented
                  legend="Alignment"
                  value={(block.node.attrs.alignment as string) || 'left'}
                  options={[
                    { value: 'left', label: 'Left' },
                    { value: 'center', label: 'Centre' },
                    { value: 'right', label: 'Right' },
                  ]}
                  onChange={(alignment) => setAttrs(editor, block, { alignment })}
                />
              )}
              {COLOURED.has(type) && (
                <>
                  <ColourInput label="Text colour" found={block} prop="color" editor={editor} />
                  {type === 'button' && (
                    <ColourInput label="Button colour" found={block} prop="background-color" editor={editor} />
                  )}
                </>
              )}
              {type === 'button' && (
                <TextInput
                  label="Link"
                  value={String(block.node.attrs.href ?? '')}
                  placeholder="https://example.com/?id={{ id }}"
                  onChange={(href) => setAttrs(editor, block, { href })}
                />
              )}
              {type === 'image' && (
                <TextInput
                  label="Description (alt text)"
                  value={String(block.node.attrs.alt ?? '')}
                  onChange={(alt) => setAttrs(editor, block, { alt })}
                />
              )}
              {type === 'spacer' && (
                <TextInput
                  label="Height (px)"
                  type="number"
                  value={String(block.node.attrs.height)}
                  onChange={(v) => setAttrs(editor, block, { height: Math.max(4, Math.min(200, Number(v) || 0)) })}
                />
              )}
              {type === 'socialLinks' &&
                SOCIAL_NETWORKS.map((n) => (
                  <TextInput
                    key={n}
                    label={`${n} address`}
                    type="url"
                    value={(block.node.attrs.links as Record<string, string>)[n] ?? ''}
                    onChange={(url) =>
                      setAttrs(editor, block, { links: { ...(block.node.attrs.links as object), [n]: url } })
                    }
                  />
                ))}
              {type === 'liquidField' && (
                <>
                  <FieldSelect
                    fields={allFields}
                    value={String(block.node.attrs.field)}
                    onChange={(field) => setAttrs(editor, block, { field })}
                  />
                  <TextInput
                    label="Default when empty"
                    value={String(block.node.attrs.fallback ?? '')}
                    onChange={(fallback) => setAttrs(editor, block, { fallback: fallback || null })}
                  />
                </>
              )}
            </Props>
          )}
          {condition && <ConditionProps editor={editor} found={condition} fields={allFields} />}
        </section>
      )}
    </div>
  );
}

function Props({ title, children }: { title: string; children: ReactNode }) {
  return (
    <fieldset className="block-props-group">
      <legend>{title}</legend>
      {children}
    </fieldset>
  );
}

/** Insert a contact field, and wrap blocks in a condition. */
function PersonaliseRow({
  editor,
  fields,
  inCondition,
}: {
  editor: Editor;
  fields: readonly BlockField[];
  inCondition: boolean;
}) {
  const [field, setField] = useState('');
  const [fallback, setFallback] = useState('');
  const chosen = field || fields[0]?.key || '';
  return (
    <fieldset className="block-personalise">
      <legend className="visually-hidden">Personalise</legend>
      <FieldSelect fields={fields} value={chosen} onChange={setField} />
      <TextInput label="Default when empty" value={fallback} onChange={setFallback} placeholder="there" />
      <button
        type="button"
        className="button button-small"
        disabled={!chosen}
        onClick={() =>
          editor
            .chain()
            .focus()
            .insertContent({ type: 'liquidField', attrs: { field: chosen, fallback: fallback.trim() || null } })
            .run()
        }
      >
        Insert field
      </button>
      <button
        type="button"
        className="button button-small"
        disabled={inCondition}
        onClick={() => {
          const attrs = { field: chosen, comparison: 'present', value: '', type: typeOf(fields, chosen) };
          if (!editor.chain().focus().wrapIn('liquidCondition', attrs).run()) {
            editor
              .chain()
              .focus()
              .insertContent({ type: 'liquidCondition', attrs, content: [{ type: 'paragraph' }] })
              .run();
          }
        }}
      >
        Show only when…
      </button>
    </fieldset>
  );
}

const typeOf = (fields: readonly BlockField[], key: string) => fields.find((f) => f.key === key)?.type ?? null;

function ConditionProps({ editor, found, fields }: { editor: Editor; found: Found; fields: readonly BlockField[] }) {
  const attrs = found.node.attrs as ConditionAttrs;
  const needsValue = attrs.comparison !== 'present' && attrs.comparison !== 'absent';
  return (
    <Props title="Condition">
      <FieldSelect
        fields={fields}
        value={attrs.field}
        onChange={(field) => setAttrs(editor, found, { field, type: typeOf(fields, field) })}
      />
      <SelectInput
        label="Test"
        value={attrs.comparison}
        options={Object.entries(COMPARISONS).map(([value, label]) => ({ value, label }))}
        onChange={(comparison) => setAttrs(editor, found, { comparison: comparison as Comparison })}
      />
      {needsValue && (
        <TextInput label="Value" value={attrs.value} onChange={(value) => setAttrs(editor, found, { value })} />
      )}
      <button
        type="button"
        className="button button-small"
        onClick={() => editor.chain().focus().lift('liquidCondition').run()}
      >
        Show to everyone
      </button>
    </Props>
  );
}

function FieldSelect({
  fields,
  value,
  onChange,
}: {
  fields: readonly BlockField[];
  value: string;
  onChange: (v: string) => void;
}) {
  const known = fields.some((f) => f.key === value);
  return (
    <SelectInput
      label="Contact field"
      value={value}
      options={[
        ...(known || !value ? [] : [{ value, label: value }]),
        ...fields.map((f) => ({ value: f.key, label: f.key })),
      ]}
      onChange={onChange}
    />
  );
}

function SelectInput(props: { label: string; value: string; options: SelectOption[]; onChange: (v: string) => void }) {
  return <SelectField {...props} className="field block-prop" />;
}

function TextInput({
  onChange,
  ...input
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  type?: string;
  placeholder?: string;
}) {
  return (
    <Field
      {...input}
      className="block-prop"
      spellCheck={false}
      autoComplete="off"
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

function ColourInput({ label, found, prop, editor }: { label: string; found: Found; prop: string; editor: Editor }) {
  const id = useId();
  const current = styleValue(found.node.attrs.style, prop);
  return (
    <div className="field block-prop block-colour">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="color"
        value={/^#[0-9a-f]{6}$/i.test(current) ? current : prop === 'color' ? '#1b1f24' : '#2f5bd3'}
        onChange={(e) => setAttrs(editor, found, { style: withStyle(found.node.attrs.style, prop, e.target.value) })}
      />
    </div>
  );
}
