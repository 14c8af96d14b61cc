import { useId } from 'react';
import { CopyButton } from '../../components/CopyButton.js';
import { saveFile } from '../../components/save-file.js';

/** The ten recovery codes, shown once: copy or download them, then say they are saved. */
export function RecoveryCodesView({ codes, onDone }: { codes: readonly string[]; onDone: () => void }) {
  const headingId = useId();
  const text = `Postbox recovery codes (each works once)\n\n${codes.join('\n')}\n`;
  return (
    <section className="stack" aria-labelledby={headingId}>
      <h3 id={headingId}>Your recovery codes</h3>
      <p className="notice" role="status">
        Two-factor sign-in is on. Save these codes somewhere safe now: they are shown only this once. Each one signs you
        in once if you lose your phone.
      </p>
      <ul className="recovery-codes" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <p className="button-row">
        <CopyButton value={codes.join('\n')} label="Copy the recovery codes" />
        <button
          type="button"
          className="button button-small"
          onClick={() => saveFile(new Blob([text], { type: 'text/plain' }), 'postbox-recovery-codes.txt')}
        >
          Download
        </button>
        <button type="button" className="button button-primary" onClick={onDone}>
          I have saved them
        </button>
      </p>
    </section>
  );
}
