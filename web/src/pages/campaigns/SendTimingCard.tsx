import { useId } from 'react';
import { errorMessage } from '../../api/errors.js';
import { Field } from '../../components/Field.js';
import { formatDateTime } from '../../format/dates.js';
import type { CampaignForm } from './campaign-form.js';
import { plural } from './campaign-words.js';
import { useCampaignSendTimes } from './campaigns-api.js';
import { SPREAD_LIMITS, type TimingChoice, type WhenPassed, zoneLines } from './send-timing.js';

/**
 * When the emails go once the campaign is sent: all at once, at a time of day in each recipient's
 * time zone, or spread over some hours; with the audience's zones and the last send time, as the
 * server reckons them for the campaign as saved.
 */
export function SendTimingCard({
  projectId,
  campaignId,
  savedAt,
  form,
  onChange,
  errors,
}: {
  projectId: string;
  campaignId: string | null;
  savedAt: string | undefined;
  form: CampaignForm;
  onChange: (patch: Partial<CampaignForm>) => void;
  /** The form's own checks and the last save's field errors, by API field. */
  errors: Record<string, string>;
}) {
  const name = useId();
  const passedId = useId();
  const times = useCampaignSendTimes(projectId, campaignId, savedAt);
  const choices: [TimingChoice, string][] = [
    ['once', 'Send at the same moment to everyone'],
    ['localTime', 'Send at a time of day in each recipient’s time zone'],
    ['spread', 'Spread over a number of hours'],
  ];
  const zones = times.data ? zoneLines(times.data) : null;
  const choiceError = errors.spread ?? errors.localTime;

  return (
    <section className="card stack" aria-labelledby={`${name}-title`}>
      <fieldset className="plain-fieldset stack-tight">
        <legend id={`${name}-title`} className="section-legend">
          Send time
        </legend>
        <div className="radio-row">
          {choices.map(([timing, title]) => (
            <label key={timing}>
              <input type="radio" name={name} checked={form.timing === timing} onChange={() => onChange({ timing })} />
              <span>{title}</span>
            </label>
          ))}
        </div>
        {choiceError && <p className="field-error">{choiceError}</p>}
        {form.timing === 'localTime' && (
          <div className="form-grid">
            <Field
              label="Time of day"
              type="time"
              value={form.localTimeAt}
              onChange={(e) => onChange({ localTimeAt: e.target.value })}
              hint="From the contact’s timezone, country or locale; the project’s default zone (Settings) when it has none."
              error={errors['localTime.time']}
            />
            <div className="field">
              <label htmlFor={passedId}>Where that time has passed on the send day</label>
              <select
                id={passedId}
                value={form.whenPassed}
                onChange={(e) => onChange({ whenPassed: e.target.value as WhenPassed })}
              >
                <option value="nextDay">Send at that time the next day</option>
                <option value="now">Send at once</option>
              </select>
              {errors['localTime.whenPassed'] && <p className="field-error">{errors['localTime.whenPassed']}</p>}
            </div>
          </div>
        )}
        {form.timing === 'spread' && (
          <div className="form-grid">
            <Field
              label="Hours"
              type="number"
              min={SPREAD_LIMITS.min}
              max={SPREAD_LIMITS.max}
              value={form.spreadHours}
              onChange={(e) => onChange({ spreadHours: e.target.value })}
              hint={`Evenly over ${SPREAD_LIMITS.min} to ${SPREAD_LIMITS.max} hours from the send moment.`}
              error={errors['spread.hours']}
            />
          </div>
        )}
      </fieldset>
      {times.isError && <p className="field-error">{errorMessage(times.error)}</p>}
      {times.data && zones && times.data.total > 0 && (
        <div className="stack-tight" aria-live="polite" data-testid="send-times">
          {form.timing === 'localTime' && (
            <ul className="plain-list small">
              {zones.lines.map((z) => (
                <li key={z.zone}>
                  {z.zone}: {plural(z.contacts, 'contact')}
                  {z.sendAt && <span className="muted"> at {formatDateTime(z.sendAt)}</span>}
                </li>
              ))}
              {zones.more > 0 && <li className="muted">Other zones: {plural(zones.more, 'contact')}</li>}
            </ul>
          )}
          {times.data.lastSendAt && (
            <p className="muted small">
              If sent now, the last email goes at <strong>{formatDateTime(times.data.lastSendAt)}</strong> your time
              (before pacing).
            </p>
          )}
        </div>
      )}
    </section>
  );
}
