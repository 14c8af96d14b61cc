import { useId, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import type { InboundEmail } from '../../../../src/api.js';
import { RecordPage } from '../../components/RecordPage.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { useInboundMessage } from './inbound-api.js';
import { formatSize, hasRemoteImages, inboundDocument, sender } from './inbound-view.js';
import './inbound.css';
import { formatDateTime } from '../../format/dates.js';

export default function InboundMessagePage() {
  const { id = '' } = useParams();
  const project = useCurrentProject();
  const message = useInboundMessage(project.id, id);
  usePageTitle(message.data?.subject || 'Received email');

  return (
    <RecordPage
      query={message}
      back={{ to: '/inbound', label: 'Inbound' }}
      labelledBy="inbound-message-title"
      title="Received email"
      missing={{
        heading: 'Message not found',
        title: 'No such message in this project',
        hint: 'It belongs to another project, or the link is incomplete.',
      }}
    >
      {(m) => (
        <>
          <div className="page-heading">
            <h1 id="inbound-message-title" className="inbound-subject">
              {m.subject || '(no subject)'}
            </h1>
            <p className="muted small">
              Received <time dateTime={m.receivedAt}>{formatDateTime(m.receivedAt)}</time>
            </p>
          </div>
          <div className="columns-record inbound-grid">
            <MessageBody message={m} />
            <Envelope message={m} />
          </div>
        </>
      )}
    </RecordPage>
  );
}

function Envelope({ message: m }: { message: InboundEmail }) {
  const headingId = useId();
  return (
    <section className="card stack" aria-labelledby={headingId}>
      <h2 id={headingId}>Envelope</h2>
      <dl className="inbound-envelope">
        <div>
          <dt>From</dt>
          <dd>
            {sender(m)}
            {m.contactId && (
              <>
                {' '}
                <Link to={`/contacts/${encodeURIComponent(m.contactId)}`}>Contact</Link>
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>To</dt>
          <dd>{m.to.join(', ')}</dd>
        </div>
        <div>
          <dt>Subject</dt>
          <dd>{m.subject || '(no subject)'}</dd>
        </div>
        {m.messageId && (
          <div>
            <dt>Message-ID</dt>
            <dd className="inbound-mono">{m.messageId}</dd>
          </div>
        )}
        {m.inReplyToEmailId && (
          <div>
            <dt>In reply to</dt>
            <dd>
              <Link to={`/emails/${encodeURIComponent(m.inReplyToEmailId)}`}>The email it answers</Link>
            </dd>
          </div>
        )}
      </dl>
      {m.attachments.length > 0 && (
        <div className="stack-tight">
          <h3 className="inbound-small-heading">Attachments (listed, not kept)</h3>
          <ul className="inbound-attachments">
            {m.attachments.map((a, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: attachments may share a name or have none
              <li key={i}>
                <span className="inbound-mono">{a.filename ?? '(no name)'}</span>{' '}
                <span className="muted small">
                  {a.contentType}, {formatSize(a.size)}
                </span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

function MessageBody({ message: m }: { message: InboundEmail }) {
  const headingId = useId();
  const [view, setView] = useState<'html' | 'text'>(m.html ? 'html' : 'text');
  const [remoteImages, setRemoteImages] = useState(false);
  const html = m.html;
  return (
    <section className="card stack" aria-labelledby={headingId}>
      <div className="inbound-body-head">
        <h2 id={headingId}>Message</h2>
        {html && m.text && (
          <div className="inbound-view-switch">
            <button
              type="button"
              className="button button-small"
              aria-pressed={view === 'html'}
              onClick={() => setView('html')}
            >
              HTML
            </button>
            <button
              type="button"
              className="button button-small"
              aria-pressed={view === 'text'}
              onClick={() => setView('text')}
            >
              Text
            </button>
          </div>
        )}
      </div>
      {view === 'html' && html ? (
        <>
          {/* sandbox="": no scripts, forms or popups, an origin of its own; the HTML never joins this page. */}
          <iframe
            className="message-frame inbound-frame"
            title={`The received email: ${m.subject || '(no subject)'}`}
            sandbox=""
            referrerPolicy="no-referrer"
            srcDoc={inboundDocument(html, remoteImages)}
          />
          {hasRemoteImages(html) && (
            <p className="muted small inbound-images">
              {remoteImages ? (
                'Remote images are shown: their sender can tell the message was opened.'
              ) : (
                <>
                  Remote images are not loaded, so the sender cannot tell the message was opened.{' '}
                  <button type="button" className="button button-small" onClick={() => setRemoteImages(true)}>
                    Load images
                  </button>
                </>
              )}
            </p>
          )}
        </>
      ) : m.text ? (
        <pre className="text-block">{m.text}</pre>
      ) : (
        <p className="muted">The message has no text.</p>
      )}
    </section>
  );
}
