import { SelectField } from '../../components/SelectField.js';
import { TRACK_OPTIONS, type TrackChoice } from './template-form.js';

/**
 * Whether a template's (or campaign's) emails count opens and clicks: the project's setting for the
 * type (Settings), or on or off for this one. A send can still choose for itself.
 */
export function TrackingSelects({
  opens,
  clicks,
  onChange,
}: {
  opens: TrackChoice;
  clicks: TrackChoice;
  onChange: (change: { trackOpens?: TrackChoice; trackClicks?: TrackChoice }) => void;
}) {
  return (
    <>
      <SelectField
        label="Track opens"
        value={opens}
        options={TRACK_OPTIONS}
        onChange={(v) => onChange({ trackOpens: v as TrackChoice })}
      />
      <SelectField
        label="Track clicks"
        value={clicks}
        options={TRACK_OPTIONS}
        onChange={(v) => onChange({ trackClicks: v as TrackChoice })}
      />
    </>
  );
}
