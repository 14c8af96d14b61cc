import { type KeyboardEvent, useId, useRef, useState } from 'react';
import { type ChoiceGroup, searchChoices } from './field-choices.js';
import type { FieldChoice } from './operator-words.js';

const TYPE_BADGES: Record<string, string> = { string: 'text', number: 'number', boolean: 'yes/no', date: 'date' };

/**
 * The searchable field picker: a button naming the field, opening a search box over the grouped
 * choices. Arrow keys move through the choices, Enter picks, Escape closes; an event name not seen
 * yet can be used as typed ("Use the event …").
 */
export function FieldPicker({
  groups,
  current,
  onPick,
  label,
  invalid,
  loading = false,
}: {
  groups: readonly ChoiceGroup[];
  /** The choices are still being fetched. */
  loading?: boolean;
  current: FieldChoice | null;
  onPick: (choice: FieldChoice) => void;
  /** What the button is for, read out before the field's name. */
  label: string;
  invalid?: boolean;
}) {
  // A filter just added has no field yet: its picker opens at once, ready to be typed in.
  const [open, setOpen] = useState(current === null);
  const [search, setSearch] = useState('');
  const [active, setActive] = useState(0);
  const button = useRef<HTMLButtonElement>(null);
  const id = useId();

  const found = searchChoices(groups, search);
  const typed = search.trim();
  const custom: FieldChoice | null =
    typed && !groups.some((g) => g.choices.some((c) => c.kind === 'event' && c.field === typed))
      ? { field: typed, label: `Use the event “${typed}”`, kind: 'event' }
      : null;
  const flat = [...found.flatMap((g) => g.choices), ...(custom ? [custom] : [])];
  const activeIndex = Math.min(active, flat.length - 1);
  const optionId = (i: number) => `${id}-option-${i}`;

  const close = (refocus: boolean) => {
    setOpen(false);
    setSearch('');
    setActive(0);
    if (refocus) button.current?.focus();
  };
  const pick = (choice: FieldChoice) => {
    onPick(choice);
    close(true);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((activeIndex + step + flat.length) % Math.max(flat.length, 1));
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const choice = flat[activeIndex];
      if (choice) pick(choice);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      close(true);
    }
  };

  let index = 0;
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: focus leaving the picker (button, search, list) closes it
    <div
      className="field-picker"
      onBlur={(event) => {
        if (open && !event.currentTarget.contains(event.relatedTarget as Node | null)) close(false);
      }}
    >
      <button
        ref={button}
        type="button"
        className={`button field-picker-button${current ? '' : ' is-empty'}`}
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-invalid={invalid || undefined}
        onClick={() => (open ? close(false) : setOpen(true))}
      >
        <span className="visually-hidden">{label}: </span>
        {current ? current.label : 'Choose a field…'}
        {current?.type && <span className="badge field-type">{TYPE_BADGES[current.type]}</span>}
      </button>
      {open && (
        <div className="field-picker-popup">
          <input
            // biome-ignore lint/a11y/noAutofocus: the picker opens to be typed in
            autoFocus
            role="combobox"
            aria-label="Search fields, events and segments"
            aria-expanded="true"
            aria-controls={`${id}-list`}
            aria-activedescendant={flat.length > 0 ? optionId(activeIndex) : undefined}
            aria-autocomplete="list"
            placeholder="Search fields, events, segments…"
            value={search}
            onChange={(e) => {
              setSearch(e.target.value);
              setActive(0);
            }}
            onKeyDown={onKeyDown}
          />
          <div id={`${id}-list`} role="listbox" aria-label="Fields, events and segments" className="field-picker-list">
            {found.map((g, n) => (
              // biome-ignore lint/a11y/useSemanticElements: a listbox groups its options with role=group; a fieldset is no option container
              <div key={g.label} role="group" aria-labelledby={`${id}-group-${n}`}>
                <div id={`${id}-group-${n}`} className="field-picker-group" role="presentation">
                  {g.label}
                </div>
                {g.choices.map((c) => {
                  const i = index++;
                  return (
                    <ChoiceOption
                      key={`${c.kind}:${c.segmentId ?? c.topicId ?? c.field}`}
                      id={optionId(i)}
                      choice={c}
                      active={i === activeIndex}
                      onPick={pick}
                    />
                  );
                })}
              </div>
            ))}
            {custom && (
              <ChoiceOption id={optionId(index)} choice={custom} active={index === activeIndex} onPick={pick} />
            )}
            {loading && <p className="muted small field-picker-none">Loading fields…</p>}
            {!loading && flat.length === 0 && <p className="muted small field-picker-none">Nothing matches.</p>}
          </div>
        </div>
      )}
    </div>
  );
}

function ChoiceOption({
  id,
  choice,
  active,
  onPick,
}: {
  id: string;
  choice: FieldChoice;
  active: boolean;
  onPick: (c: FieldChoice) => void;
}) {
  return (
    <div
      id={id}
      role="option"
      tabIndex={-1}
      aria-selected={active}
      className={active ? 'field-picker-option is-active' : 'field-picker-option'}
      // Keeps the focus in the search box, so the popup does not close before the click lands.
      onMouseDown={(e) => e.preventDefault()}
      onClick={() => onPick(choice)}
      onKeyDown={(e) => e.key === 'Enter' && onPick(choice)}
      ref={(el) => {
        if (active) el?.scrollIntoView({ block: 'nearest' });
      }}
    >
      <span>{choice.label}</span>
      {choice.type && <span className="badge field-type">{TYPE_BADGES[choice.type]}</span>}
      {choice.detail && <span className="muted small">{choice.detail}</span>}
    </div>
  );
}
