import type { Ref } from 'react';

/** The hidden file chooser behind an "Insert image" button: the image types uploads take, one at a time. */
export function ImageFileInput({
  inputRef,
  onFile,
}: {
  inputRef: Ref<HTMLInputElement>;
  onFile: (file: File) => void;
}) {
  return (
    <input
      ref={inputRef}
      type="file"
      accept="image/png,image/jpeg,image/gif,image/webp"
      hidden
      aria-label="Image file"
      onChange={(e) => {
        const file = e.target.files?.[0];
        e.target.value = '';
        if (file) onFile(file);
      }}
    />
  );
}
