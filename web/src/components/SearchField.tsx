import { useEffect, useId, useRef, useState } from 'react';

const DEBOUNCE_MS = 300;

/**
 * Searches once the user pauses typing, so a million-row table is not queried per keystroke. The
 * search lives in the address, which can change under the box (back button, "Clear filters"); the
 * box then shows it.
 */
export function SearchField({
  label,
  placeholder,
  value,
  onSearch,
  controls,
  spellCheck,
}: {
  label: string;
  placeholder: string;
  value: string;
  onSearch: (search: string) => void;
  controls: string;
  spellCheck?: boolean;
}) {
  const id = useId();
  const [text, setText] = useState(value);
  const searched = useRef(value);
  const latestOnSearch = useRef(onSearch);
  latestOnSearch.current = onSearch;

  useEffect(() => {
    if (value === searched.current) return;
    searched.current = value;
    setText(value);
  }, [value]);

  useEffect(() => {
    const search = text.trim();
    if (search === searched.current) return;
    const timer = setTimeout(() => {
      searched.current = search;
      latestOnSearch.current(search);
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text]);

  return (
    <div className="field search-box">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="search"
        value={text}
        onChange={(e) => setText(e.target.value)}
        placeholder={placeholder}
        autoComplete="off"
        spellCheck={spellCheck}
        aria-controls={controls}
      />
    </div>
  );
}
