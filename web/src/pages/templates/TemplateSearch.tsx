import { useEffect, useId, useRef, useState } from 'react';

const DEBOUNCE_MS = 300;

/** Searches names, descriptions and subjects once the user pauses typing. */
export function TemplateSearch({
  value,
  onSearch,
  controls,
}: {
  value: string;
  onSearch: (search: string) => void;
  controls: string;
}) {
  const id = useId();
  const [text, setText] = useState(value);
  const searched = useRef(value);
  const latestOnSearch = useRef(onSearch);
  latestOnSearch.current = onSearch;

  // The URL can change under the box (back button, "Clear filters"); the box then shows it.
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
      <label htmlFor={id}>Search templates</label>
      <input
        id={id}
        type="search"
        value={text}
        onChange={(e) => setText(e.target.value)}
        placeholder="Name, description or subject"
        autoComplete="off"
        aria-controls={controls}
      />
    </div>
  );
}
