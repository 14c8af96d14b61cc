import { type InputHTMLAttributes, useId } from 'react';

interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> {
  label: string;
  hint?: string;
  error?: string;
}

/** A labelled input whose hint and error are read out with it. */
export function Field({ label, hint, error, className, ...input }: FieldProps) {
  const notes = useFieldNotes(hint, error);
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={notes.id}>{label}</label>
      <input id={notes.id} aria-invalid={error ? true : undefined} aria-describedby={notes.describedBy} {...input} />
      <FieldNotes {...notes} />
    </div>
  );
}

export interface FieldNotesProps {
  hint?: string;
  error?: string;
  hintId: string;
  errorId: string;
}

/** The control's id, its hint's and error's, and the `aria-describedby` that names those shown. */
export function useFieldNotes(hint?: string, error?: string): FieldNotesProps & { id: string; describedBy?: string } {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined;
  return { id, hint, error, hintId, errorId, describedBy };
}

/** A field's hint and error, below its control. */
export function FieldNotes({ hint, error, hintId, errorId }: FieldNotesProps) {
  return (
    <>
      {hint && (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </>
  );
}
