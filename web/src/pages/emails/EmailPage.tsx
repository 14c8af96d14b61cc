import { useId } from 'react';
import { Link, useParams } from 'react-router-dom';
import type { EmailRecord } from '../../../../src/api.js';
import { type RecordRef, useRecordNames } from '../../api/record-names.js';
import { Alert } from '../../components/Alert.js';
import { QueryView } from '../../components/QueryView.js';
import { RecordLink } from '../../components/RecordLink.js';
import { RecordPage } from '../../components/RecordPage.js';
import { TableHead } from '../../components/TableHead.js';
import { useDownload } from '../../components/useDownload.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { deliveryStory, hasMessageFile, mailbox, type StoryStep, typeLabel } from './email-status.js';
import { downloadEml, useEmailContent, useEmailRecord } from './emails-api.js';
import { withoutTracking } from './preview-html.js';
import { StatusBadge } from './StatusBadge.js';
import './emails.css';
import { formatDateTime } from '../../format/dates.js';

function When({ at }: { at: string }) {
  return <time dateTime={at}>{formatDateTime(at)}</time>;
}

export default function EmailPage() {
  const { id = '' } = useParams();
  const project = useCurrentProject();
  const email = useEmailRecord(project.id, id);
  usePageTitle(email.data?.subject || 'Email');

  return (
    <RecordPage
      query={email}
      back={{ to: '/emails', label: 'Emails' }}
      labelledBy="email-title"
      missingStatuses={[404, 422, 400]}
      title="Email"
      missing={{
        heading: 'Email not found',
        title: 'No such email in this project',
        hint: 'It belongs to another project, or the link is incomplete.',
      }}
    >
      {(e) => (
        <>
          <div className="spread">
            <div className="page-heading">
              <h1 id="email-title" className="email-subject">
                {e.subject || '(no subject)'}
              </h1>
              <p className="muted small">
                To {mailbox(e.to, e.toName)} · {typeLabel(e.type)} · created <When at={e.createdAt} />
              </p>
            </div>
            <p className="email-status-line">
              <span className="visually-hidden">Status: </span>
              <StatusBadge email={e} />
            </p>
          </div>

          <div className="columns-record email-grid">
            <div className="stack">
              <MessageCard projectId={project.id} email={e} />
            </div>
            <div className="stack">
              <DeliveryCard email={e} />
              <EngagementCard email={e} />
              <RelatedCard projectId={project.id} email={e} />
              <DownloadCard projectId={project.id} email={e} />
            </div>
          </div>
        </>
      )}
    </RecordPage>
  );
}

function MessageCard({ projectId, email }: { projectId: string; email: EmailRecord }) {
  const content = useEmailContent(projectId, email.id);
  const headingId = useId();
  const extraHeaders = Object.entries(content.data?.headers ?? {});
  return (
    <section className="card stack email-message" aria-labelledby={headingId}>
      <h2 id={headingId}>Message</h2>
      <dl className="envelope">
        <div>
          <dt>From</dt>
          <dd>{mailbox(email.from, email.fromName)}</dd>
        </div>
        <div>
          <dt>To</dt>
          <dd>{mailbox(email.to, email.toName)}</dd>
        </div>
        {email.replyTo && (
          <div>
            <dt>Reply-To</dt>
            <dd>{email.replyTo}</dd>
          </div>
        )}
        <div>
          <dt>Subject</dt>
          <dd>{email.subject || '(no subject)'}</dd>
        </div>
        <div>
          <dt>Message-ID</dt>
          <dd className="email-mono">{email.messageId}</dd>
        </div>
      </dl>

      {extraHeaders.length > 0 && (
        <div className="table-scroll email-headers">
          <table className="table">
            <caption className="email-caption">Extra headers</caption>
            <TableHead columns={['Header', 'Value']} />
            <tbody>
              {extraHeaders.map(([name, value]) => (
                <tr key={name}>
                  <th scope="row" className="email-mono">
                    {name}
                  </th>
                  <td className="email-wrap">{value}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <QueryView query={content} loading={<p className="email-frame-placeholder muted">Loading the message…</p>}>
        {(message) => (
          <>
            {/* sandbox="": no scripts, forms or popups, and an origin of its own; the HTML never joins this page. */}
            <iframe
              className="message-frame email-frame"
              title={`The email as sent: ${email.subject || '(no subject)'}`}
              sandbox=""
              referrerPolicy="no-referrer"
              srcDoc={withoutTracking(message.html, email.id)}
            />
            <p className="muted small">
              Shown without its open pixel and with its links untracked, so looking at it here counts no open or click.
            </p>
          </>
        )}
      </QueryView>
    </section>
  );
}

const TONE_CLASS = { ok: 'story-ok', pending: 'story-pending', failed: 'story-failed', neutral: 'story-neutral' };

function DeliveryCard({ email }: { email: EmailRecord }) {
  const headingId = useId();
  const steps = deliveryStory(email);
  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId}>Delivery</h2>
      <ol className="timeline story" aria-live="polite">
        {steps.map((step) => (
          <StoryItem key={step.key} step={step} />
        ))}
      </ol>
    </section>
  );
}

function StoryItem({ step }: { step: StoryStep }) {
  return (
    <li className={`timeline-item story-item ${TONE_CLASS[step.tone]}`}>
      <p className="story-title">{step.title}</p>
      {step.at && (
        <p className="muted small">
          <When at={step.at} />
        </p>
      )}
      {step.detail && (
        <p className="story-detail">
          {step.detailLabel && <span className="story-detail-label">{step.detailLabel}: </span>}
          <span className="email-wrap">{step.detail}</span>
        </p>
      )}
    </li>
  );
}

function EngagementCard({ email }: { email: EmailRecord }) {
  const headingId = useId();
  const rows: { label: string; count: number; first: string | null }[] = [
    { label: 'Opens', count: email.openCount, first: email.openedAt },
    { label: 'Clicks', count: email.clickCount, first: email.clickedAt },
  ];
  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId}>Opens and clicks</h2>
      <dl className="engagement">
        {rows.map((r) => (
          <div key={r.label}>
            <dt>{r.label}</dt>
            <dd>
              <span className="engagement-count">{r.count}</span>
              <span className="muted small">
                {r.first ? (
                  <>
                    first <When at={r.first} />
                  </>
                ) : (
                  'none yet'
                )}
              </span>
            </dd>
          </div>
        ))}
      </dl>
      {email.type === 'HEADLESS' && (
        <p className="muted small">Headless mail goes out exactly as written: its opens and clicks are not tracked.</p>
      )}
    </section>
  );
}

function RelatedCard({ projectId, email }: { projectId: string; email: EmailRecord }) {
  const headingId = useId();
  const campaign: RecordRef | null = email.campaignId ? { kind: 'campaign', id: email.campaignId } : null;
  const template: RecordRef | null = email.templateId ? { kind: 'template', id: email.templateId } : null;
  const nameOf = useRecordNames(
    projectId,
    [campaign, template].filter((r) => r !== null),
  );
  if (!email.contactId && !email.campaignId && !email.templateId) return null;
  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId}>Related</h2>
      <dl className="envelope">
        {email.contactId && (
          <div>
            <dt>Contact</dt>
            <dd>
              <Link to={`/contacts/${encodeURIComponent(email.contactId)}`}>{email.to}</Link>
            </dd>
          </div>
        )}
        {email.campaignId && (
          <div>
            <dt>Campaign</dt>
            <dd>
              <RecordLink to={campaign!} name={nameOf(campaign!)} /> ·{' '}
              <Link to={`/emails?campaignId=${encodeURIComponent(email.campaignId)}`}>Its emails</Link>
            </dd>
          </div>
        )}
        {email.templateId && (
          <div>
            <dt>Template</dt>
            <dd>
              <RecordLink to={template!} name={nameOf(template!)} />
            </dd>
          </div>
        )}
      </dl>
    </section>
  );
}

function DownloadCard({ projectId, email }: { projectId: string; email: EmailRecord }) {
  const file = useDownload(() => downloadEml(projectId, email));
  const headingId = useId();
  const available = hasMessageFile(email);
  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId}>Message file</h2>
      {available ? (
        <>
          <p className="muted small">
            The message exactly as it left, headers and all, while mail is captured here (no SMTP relay configured).
          </p>
          <p>
            <button type="button" className="button" disabled={file.busy} onClick={file.start}>
              {file.busy ? 'Downloading…' : 'Download .eml'}
            </button>
          </p>
          {file.problem && <Alert>{file.problem}</Alert>}
        </>
      ) : (
        <p className="muted small">
          {email.status === 'queued'
            ? 'There is a file once the email has been sent.'
            : 'This email never left: no file.'}
        </p>
      )}
    </section>
  );
}
