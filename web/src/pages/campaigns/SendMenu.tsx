import { type FormEvent, type ReactNode, useId, useState } from 'react';
import type { Campaign } from '../../../../src/api.js';
import { useMe } from '../../api/auth.js';
import { ApiError, errorMessage } from '../../api/errors.js';
import { useMembers } from '../../api/members.js';
import { Alert } from '../../components/Alert.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { Dialog } from '../../components/Dialog.js';
import { DialogActions } from '../../components/DialogActions.js';
import { Field } from '../../components/Field.js';
import type { Estimate } from '../../components/filter-builder/useLiveCount.js';
import { formatDateTime } from '../../format/dates.js';
import { recipientWords } from './AudienceCard.js';
import { variantLetter } from './ab-test-form.js';
import { cancelWords, count, instantIn, schedulePresets, timeZones, viewerZone, wallClock } from './campaign-words.js';
import { type CampaignAction, useCampaignAction, useSendTest } from './campaigns-api.js';
import { MenuButton, type MenuItem } from './MenuButton.js';

type Step = 'test' | 'send' | 'schedule' | 'unschedule' | 'cancel' | 'pause' | 'resume' | null;

/**
 * The one menu of a campaign's sending: a test, send now, schedule, and once under way pause,
 * resume and cancel; each behind a dialog that says what happens and to how many.
 */
export function SendMenu({
  projectId,
  campaign,
  audience,
  blockedBy,
}: {
  projectId: string;
  campaign: Campaign;
  /** The audience's count now; while sending, the campaign's frozen total is used. */
  audience: Estimate | undefined;
  /** Why sending must wait (unsaved changes), shown beside the menu; null when it need not. */
  blockedBy: string | null;
}) {
  const [step, setStep] = useState<Step>(null);
  const action = useCampaignAction(projectId, campaign.id);
  const hintId = useId();
  const run = (name: CampaignAction, body?: unknown) =>
    action.mutate({ action: name, body }, { onSuccess: () => setStep(null) });
  const who = audience ? recipientWords(audience, campaign.type) : 'the audience';
  const close = () => {
    action.reset();
    setStep(null);
  };

  const items: MenuItem[] = [];
  const editable = campaign.status === 'DRAFT' || campaign.status === 'SCHEDULED';
  if (editable) {
    items.push({ label: 'Send a test…', onSelect: () => setStep('test') });
    items.push({ label: 'Send now…', onSelect: () => setStep('send') });
    items.push({
      label: campaign.status === 'SCHEDULED' ? 'Change the time…' : 'Schedule…',
      onSelect: () => setStep('schedule'),
    });
  }
  if (campaign.status === 'SCHEDULED') items.push({ label: 'Unschedule…', onSelect: () => setStep('unschedule') });
  if (campaign.status === 'SENDING') items.push({ label: 'Pause…', onSelect: () => setStep('pause') });
  if (campaign.status === 'PAUSED') items.push({ label: 'Resume…', onSelect: () => setStep('resume') });
  if (campaign.status === 'SCHEDULED' || campaign.status === 'SENDING' || campaign.status === 'PAUSED')
    items.push({ label: 'Cancel the campaign…', onSelect: () => setStep('cancel'), danger: true });
  if (items.length === 0) return null;

  return (
    <div className="send-menu">
      <MenuButton
        label={editable ? 'Send' : 'Sending'}
        items={items}
        disabled={Boolean(blockedBy)}
        describedBy={blockedBy ? hintId : undefined}
      />
      {blockedBy && (
        <p id={hintId} className="muted small">
          {blockedBy}
        </p>
      )}

      <TestDialog projectId={projectId} campaign={campaign} open={step === 'test'} onClose={close} />
      {confirmations(campaign, who).map((c) => (
        <ConfirmDialog
          key={c.step}
          open={step === c.step}
          title={c.title}
          onClose={close}
          mutation={action}
          tone={c.step === 'cancel' ? 'danger' : 'primary'}
          confirmLabel={c.confirm}
          pendingLabel={c.pending}
          onConfirm={() => run(c.step)}
        >
          <p>{c.text}</p>
        </ConfirmDialog>
      ))}
      <ScheduleDialog
        open={step === 'schedule'}
        campaign={campaign}
        who={who}
        mutation={action}
        onClose={close}
        onSchedule={(at) => run('send', { scheduledFor: at.toISOString() })}
      />
    </div>
  );
}

type Confirmed = 'send' | 'unschedule' | 'cancel' | 'pause' | 'resume';

/** The actions that need only a yes: what each one does, in words. */
function confirmations(campaign: Campaign, who: string) {
  const list: { step: Confirmed; title: string; confirm: string; pending: string; text: ReactNode }[] = [
    {
      step: 'send',
      title: 'Send the campaign now?',
      confirm: `Send to ${who}`,
      pending: 'Starting…',
      text: (
        <>
          “{campaign.subject}” goes to <strong>{who}</strong> now. The audience is counted again as sending starts;
          every recipient gets it once.
        </>
      ),
    },
    {
      step: 'unschedule',
      title: 'Unschedule the campaign?',
      confirm: 'Unschedule',
      pending: 'Unscheduling…',
      text: 'It goes back to draft: nothing is sent at the scheduled time, and you can edit it, schedule it or send it again.',
    },
    {
      step: 'cancel',
      title: 'Cancel the campaign?',
      confirm: 'Cancel the campaign',
      pending: 'Cancelling…',
      text: cancelWords(campaign),
    },
    {
      step: 'pause',
      title: 'Pause sending?',
      confirm: 'Pause',
      pending: 'Pausing…',
      text: 'The messages still waiting are held until you resume; messages already handed to the mail server still go out.',
    },
    {
      step: 'resume',
      title: 'Resume sending?',
      confirm: 'Resume',
      pending: 'Resuming…',
      text: `Sending goes on where it stopped, to the ${count(campaign.totalRecipients - campaign.sentCount)} recipients not sent to yet. The guardrails judge what is sent from now on.`,
    },
  ];
  return list;
}

function TestDialog({
  projectId,
  campaign,
  open,
  onClose,
}: {
  projectId: string;
  campaign: Campaign;
  open: boolean;
  onClose: () => void;
}) {
  const members = useMembers(projectId);
  const me = useMe();
  const [address, setAddress] = useState<string | null>(null);
  const to = address ?? me.data?.email ?? '';
  const [variant, setVariant] = useState('A');
  const send = useSendTest(projectId, campaign.id);
  const listId = useId();
  const variantId = useId();
  const variants = campaign.abTest?.variants ?? [];
  const close = () => {
    send.reset();
    setAddress(null);
    onClose();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    send.mutate({ email: to.trim(), variant: variants.length ? variant : undefined });
  };
  const fieldError =
    send.error instanceof ApiError ? send.error.fieldErrors.find((f) => f.field === 'email')?.message : undefined;

  return (
    <Dialog open={open} title="Send a test" onClose={close} busy={send.isPending}>
      <form className="stack" onSubmit={submit} noValidate>
        <p className="muted small">
          One email of the campaign as it is saved, rendered with the data of the contact that has the address (if any).
          It counts in none of the campaign’s figures.
        </p>
        <Field
          label="Send to"
          type="email"
          list={listId}
          value={to}
          onChange={(e) => setAddress(e.target.value)}
          autoComplete="off"
          spellCheck={false}
          hint="A member’s address, or any other."
          error={fieldError}
        />
        <datalist id={listId}>
          {(members.data ?? []).map((m) => (
            <option key={m.userId} value={m.email} />
          ))}
        </datalist>
        {variants.length > 0 && (
          <div className="field">
            <label htmlFor={variantId}>Variant</label>
            <select id={variantId} value={variant} onChange={(e) => setVariant(e.target.value)}>
              {variants.map((v, i) => (
                <option key={variantLetter(i)} value={variantLetter(i)}>
                  {variantLetter(i)}: {v.subject ?? campaign.subject}
                </option>
              ))}
            </select>
          </div>
        )}
        <div aria-live="polite">
          {send.data && <p className="status status-ok">{send.data.message}.</p>}
          {send.error && !fieldError ? <Alert>{errorMessage(send.error)}</Alert> : null}
        </div>
        <div className="dialog-actions">
          <button type="button" className="button" onClick={close} disabled={send.isPending}>
            Close
          </button>
          <button type="submit" className="button button-primary" disabled={send.isPending || !to.trim()}>
            {send.isPending ? 'Sending…' : 'Send test'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function ScheduleDialog({
  open,
  campaign,
  who,
  mutation,
  onClose,
  onSchedule,
}: {
  open: boolean;
  campaign: Campaign;
  who: string;
  mutation: ReturnType<typeof useCampaignAction>;
  onClose: () => void;
  onSchedule: (at: Date) => void;
}) {
  return (
    <Dialog open={open} title="Schedule the campaign" onClose={onClose} busy={mutation.isPending}>
      <ScheduleForm campaign={campaign} who={who} mutation={mutation} onCancel={onClose} onSchedule={onSchedule} />
    </Dialog>
  );
}

/** Mounted with the dialog, so each opening starts from the current schedule or from a preset. */
function ScheduleForm({
  campaign,
  who,
  mutation,
  onCancel,
  onSchedule,
}: {
  campaign: Campaign;
  who: string;
  mutation: ReturnType<typeof useCampaignAction>;
  onCancel: () => void;
  onSchedule: (at: Date) => void;
}) {
  const [zone, setZone] = useState(viewerZone);
  const presets = schedulePresets(new Date());
  const start = campaign.scheduledFor ? new Date(campaign.scheduledFor) : presets[1]!.at;
  const [wall, setWall] = useState(() => wallClock(start, zone));
  const [problem, setProblem] = useState<string | null>(null);
  const ids = { zone: useId(), presets: useId() };
  const at = instantIn(wall.date, wall.time, zone);
  const inPast = at !== null && at.getTime() < Date.now();
  const serverError = mutation.error instanceof ApiError ? mutation.error.fieldErrors[0]?.message : undefined;

  return (
    <form
      className="stack"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        if (!at) return setProblem('Enter a date and a time.');
        setProblem(null);
        onSchedule(at);
      }}
    >
      <fieldset className="plain-fieldset">
        <legend id={ids.presets} className="section-legend">
          Quick picks
        </legend>
        <div className="preset-row">
          {presets.map((p) => (
            <button
              key={p.label}
              type="button"
              className="button button-small"
              onClick={() => setWall(wallClock(p.at, zone))}
            >
              {p.label}
            </button>
          ))}
        </div>
      </fieldset>
      <div className="form-grid">
        <Field
          label="Date"
          type="date"
          value={wall.date}
          onChange={(e) => setWall({ ...wall, date: e.target.value })}
        />
        <Field
          label="Time"
          type="time"
          value={wall.time}
          onChange={(e) => setWall({ ...wall, time: e.target.value })}
          error={problem ?? serverError}
        />
        <div className="field span-all">
          <label htmlFor={ids.zone}>Time zone</label>
          <select
            id={ids.zone}
            value={zone}
            onChange={(e) => {
              // The same instant keeps its place: the clock reading changes with the zone.
              if (at) setWall(wallClock(at, e.target.value));
              setZone(e.target.value);
            }}
          >
            {timeZones().map((z) => (
              <option key={z} value={z}>
                {z}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p aria-live="polite" data-testid="schedule-summary">
        {at ? (
          <>
            Goes to <strong>{who}</strong> on <strong>{formatDateTime(at)}</strong> your time ({viewerZone()}).
            {inPast ? ' That time has passed: it would start at once.' : ''}
          </>
        ) : (
          'Choose a date and a time.'
        )}
      </p>
      {mutation.error && !serverError ? <Alert>{errorMessage(mutation.error)}</Alert> : null}
      <DialogActions
        busy={mutation.isPending}
        label="Schedule"
        busyLabel="Scheduling…"
        tone="primary"
        onCancel={onCancel}
      />
    </form>
  );
}
