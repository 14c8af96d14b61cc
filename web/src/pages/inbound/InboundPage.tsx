import { Link, useLocation, useNavigate } from 'react-router-dom';
import type { InboundEmail } from '../../../../src/api.js';
import { CursorPager } from '../../components/CursorPager.js';
import { EmptyState } from '../../components/EmptyState.js';
import { QueryView } from '../../components/QueryView.js';
import { TableHead } from '../../components/TableHead.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { usePageTitle } from '../../shell/usePageTitle.js';
import { useInboundPage } from './inbound-api.js';
import {
  type InboundPosition,
  inboundPageNumber,
  inboundQuery,
  nextInboundPage,
  parseInboundCursor,
  previousInboundPage,
  readTrail,
  sender,
  snippet,
} from './inbound-view.js';
import './inbound.css';
import { formatDateTime } from '../../format/dates.js';

const PAGE_SIZE = 25;
const numberFormat = new Intl.NumberFormat();

export default function InboundPage() {
  usePageTitle('Inbound');
  const project = useCurrentProject();
  const location = useLocation();
  const navigate = useNavigate();
  const at: InboundPosition = { cursor: parseInboundCursor(location.search), trail: readTrail(location.state) };
  const page = useInboundPage(project.id, at.cursor, PAGE_SIZE);
  const go = (next: InboundPosition) => {
    const query = inboundQuery(next.cursor);
    navigate({ pathname: location.pathname, search: query ? `?${query}` : '' }, { state: { trail: next.trail } });
    window.scrollTo({ top: 0 });
  };
  const total = !at.cursor && page.data && !page.isPlaceholderData ? page.data.total : null;

  return (
    <section aria-labelledby="inbound-title" className="stack">
      <div className="page-heading">
        <h1 id="inbound-title">Inbound</h1>
        <p className="muted">
          Mail received at this project’s verified domains, such as replies to what it sent; newest first.
          {total !== null && ` ${numberFormat.format(total)} received.`}
        </p>
      </div>

      <div className="table-region" aria-busy={page.isFetching || undefined}>
        <QueryView
          query={page}
          loading={<p className="region-message">Loading received mail…</p>}
          isEmpty={(found) => found.data.length === 0}
          empty={
            at.cursor ? (
              <EmptyState title="This page is empty">
                <button type="button" className="button" onClick={() => go({ cursor: null, trail: [] })}>
                  Go to the first page
                </button>
              </EmptyState>
            ) : (
              <EmptyState title="No mail received yet">
                <p className="muted">
                  Mail sent to an address at one of this project’s <Link to="/domains">verified domains</Link> is listed
                  here, once the service’s inbound SMTP listener (<code>INBOUND_SMTP_PORT</code>) is reachable as the
                  domain’s MX.
                </p>
              </EmptyState>
            )
          }
        >
          {(found) => <InboundTable messages={found.data} stale={page.isPlaceholderData} />}
        </QueryView>
      </div>

      {page.data && (
        <CursorPager
          label="Pages of received mail"
          page={inboundPageNumber(at)}
          busy={page.isPlaceholderData}
          onPrevious={at.cursor ? () => go(previousInboundPage(at)) : undefined}
          next={page.data.hasMore ? page.data.cursor : null}
          onNext={(cursor) => go(nextInboundPage(at, cursor))}
        />
      )}
    </section>
  );
}

function InboundTable({ messages, stale }: { messages: readonly InboundEmail[]; stale: boolean }) {
  return (
    <div className="table-scroll">
      <table className={`table table-cards inbound-table${stale ? ' is-stale' : ''}`}>
        <caption className="visually-hidden">Received mail</caption>
        <TableHead columns={['From', 'Subject', 'To', 'Received']} />
        <tbody>
          {messages.map((m) => (
            <tr key={m.id}>
              <td className="cell-inbound-from">{sender(m)}</td>
              <td className="cell-inbound-subject">
                <Link to={`/inbound/${encodeURIComponent(m.id)}`}>{m.subject || '(no subject)'}</Link>
                {m.text && <span className="muted small inbound-snippet">{snippet(m.text)}</span>}
              </td>
              <td className="cell-inbound-to">{m.to.join(', ')}</td>
              <td className="cell-when">
                <time dateTime={m.receivedAt}>{formatDateTime(m.receivedAt)}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
