import { useDeferredValue, useEffect, useId, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { errorMessage } from '../../api/errors.js';
import { useCurrentProject } from '../current-project.js';
import { matchingPages, moveActive, type PaletteItem, searchTerm } from './palette-items.js';
import { usePaletteSearch } from './usePaletteSearch.js';
import './palette.css';

interface CommandPaletteProps {
  pages: readonly { to: string; label: string }[];
  onClose: () => void;
}

/**
 * Jump anywhere by typing: a page by name, a contact by email, a template or campaign by name.
 * A combobox in the browser's own modal dialog: focus stays inside, Escape closes, arrows move
 * through the options and Enter opens the active one.
 */
export default function CommandPalette({ pages, onClose }: CommandPaletteProps) {
  const project = useCurrentProject();
  const navigate = useNavigate();
  const dialog = useRef<HTMLDialogElement>(null);
  const listId = useId();
  const [query, setQuery] = useState('');
  const [activeId, setActiveId] = useState<string | null>(null);
  const term = searchTerm(useDeferredValue(query));
  const found = usePaletteSearch(project.id, term);
  const items: PaletteItem[] = [...matchingPages(query, pages), ...(term ? (found.data ?? []) : [])];
  const active = items.find((i) => i.id === activeId) ?? items[0] ?? null;

  useEffect(() => {
    dialog.current?.showModal();
  }, []);

  const open = (item: PaletteItem) => {
    onClose();
    navigate(item.to);
  };

  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard closes it with Escape (the cancel event); the click is on the backdrop
    <dialog
      ref={dialog}
      className="dialog palette"
      aria-label="Go to"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        // A click on the backdrop lands on the dialog element itself.
        if (event.target === dialog.current) onClose();
      }}
    >
      <input
        type="text"
        role="combobox"
        aria-label="Go to a page, contact, template or campaign"
        aria-expanded="true"
        aria-controls={listId}
        aria-activedescendant={active ? `${listId}-${active.id}` : undefined}
        aria-autocomplete="list"
        placeholder="Go to… (a page, an email address, a template or campaign name)"
        value={query}
        onChange={(event) => {
          setQuery(event.target.value);
          setActiveId(null);
        }}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            setActiveId(moveActive(items, active?.id ?? null, event.key === 'ArrowDown' ? 1 : -1));
          } else if (event.key === 'Enter' && active) {
            event.preventDefault();
            open(active);
          }
        }}
      />
      <div id={listId} role="listbox" aria-label="Results" className="palette-results">
        {items.map((item, index) => (
          <div
            key={item.id}
            id={`${listId}-${item.id}`}
            role="option"
            tabIndex={-1}
            aria-selected={item.id === active?.id}
            className="palette-option"
            onMouseMove={() => setActiveId(item.id)}
            onClick={() => open(item)}
            onKeyDown={(event) => event.key === 'Enter' && open(item)}
          >
            {index === 0 || items[index - 1]!.group !== item.group ? (
              <span className="palette-group">{item.group}</span>
            ) : null}
            <span className="palette-label">{item.label}</span>
            {item.hint && <span className="palette-hint">{item.hint}</span>}
          </div>
        ))}
      </div>
      <p className="palette-status muted" aria-live="polite">
        {term && found.isFetching
          ? 'Searching…'
          : found.isError
            ? errorMessage(found.error)
            : items.length === 0
              ? 'Nothing matches'
              : `${items.length} result${items.length === 1 ? '' : 's'}`}
      </p>
    </dialog>
  );
}
