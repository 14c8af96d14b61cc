import { useDeferredValue, useEffect, useId, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { errorMessage } from '../../api/errors.js';
import { useCurrentProject } from '../current-project.js';
import { NAV_ITEMS } from '../navigation.js';
import { groupItems, matchingPages, moveActive, type PaletteItem, searchTerm } from './palette-items.js';
import { usePaletteSearch } from './usePaletteSearch.js';
import './palette.css';

/**
 * Jump anywhere by typing: a page by name or group, a contact by email, a template or campaign by name.
 * A combobox in the browser's own modal dialog: focus stays inside, Escape closes, arrows move
 * through the options and Enter opens the active one.
 */
export default function CommandPalette({ onClose }: { onClose: () => void }) {
  const project = useCurrentProject();
  const navigate = useNavigate();
  const dialog = useRef<HTMLDialogElement>(null);
  const listId = useId();
  const [query, setQuery] = useState('');
  const [activeId, setActiveId] = useState<string | null>(null);
  const term = searchTerm(useDeferredValue(query));
  const found = usePaletteSearch(project.id, term);
  const items: PaletteItem[] = [...matchingPages(query, NAV_ITEMS), ...(term ? (found.data ?? []) : [])];
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
        {/* Each group's label sits above its options, outside them: never inside the highlighted one. */}
        {groupItems(items).map(({ group, items: options }) => (
          // biome-ignore lint/a11y/useSemanticElements: a listbox's groups are ARIA groups; a fieldset is for form controls
          <div key={group} role="group" aria-labelledby={`${listId}-group-${group}`} className="palette-section">
            <div id={`${listId}-group-${group}`} role="presentation" className="palette-group">
              {group}
            </div>
            {options.map((item) => (
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
                <span className="palette-label">{item.label}</span>
                {item.hint && <span className="palette-hint">{item.hint}</span>}
              </div>
            ))}
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
