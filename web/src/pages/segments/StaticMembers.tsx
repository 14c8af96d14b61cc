import { useId, useState } from 'react';
import { Link } from 'react-router-dom';
import type { Segment } from '../../../../src/api.js';
import { errorMessage } from '../../api/errors.js';
import { EmptyState } from '../../components/EmptyState.js';
import { OffsetPager } from '../../components/OffsetPager.js';
import { QueryView } from '../../components/QueryView.js';
import { TableHead, TableSkeleton } from '../../components/TableHead.js';
import { addressesIn, batches, changeWords } from './segment-form.js';
import { type AddMembersResult, useAddMembers, useRemoveMembers, useSegmentMembers } from './segments-api.js';

const COLUMNS = ['Email', 'Subscribed'] as const;
const numberFormat = new Intl.NumberFormat();

interface Added {
  added: number;
  alreadyMembers: number;
  created: number;
  notFound: string[];
  total: number;
}

/** A static segment's list: add by pasting addresses or reading a CSV, remove, page through. */
export function StaticMembers({ projectId, segment }: { projectId: string; segment: Segment }) {
  const [text, setText] = useState('');
  const [createMissing, setCreateMissing] = useState(true);
  const [subscribed, setSubscribed] = useState(true);
  const [result, setResult] = useState<Added | null>(null);
  const [removed, setRemoved] = useState<string | null>(null);
  const [page, setPage] = useState(1);
  const add = useAddMembers(projectId, segment.id);
  const remove = useRemoveMembers(projectId, segment.id);
  const members = useSegmentMembers(projectId, segment.id, page);
  const ids = { text: useId(), hint: useId(), error: useId() };
  const addresses = addressesIn(text);
  const [inputError, setInputError] = useState<string | null>(null);

  const submit = async () => {
    if (addresses.length === 0) {
      setInputError('Paste at least one email address, or choose a CSV file with an "email" column.');
      return;
    }
    setInputError(null);
    const sum: Added = { added: 0, alreadyMembers: 0, created: 0, notFound: [], total: 0 };
    for (const emails of batches(addresses)) {
      let r: AddMembersResult;
      try {
        r = await add.mutateAsync({ emails, createMissing, subscribed: createMissing ? subscribed : undefined });
      } catch {
        return;
      }
      sum.added += r.added;
      sum.alreadyMembers += r.alreadyMembers;
      sum.created += r.created;
      sum.notFound.push(...r.notFound);
      sum.total = r.memberCount;
    }
    setResult(sum);
    setRemoved(null);
    setText('');
  };
  const readFile = async (file: File | undefined) => {
    if (file) setText(await file.text());
  };

  return (
    <section className="card stack members-card" aria-labelledby="members-title">
      <h2 id="members-title">Add members</h2>
      <div className="field">
        <label htmlFor={ids.text}>Email addresses</label>
        <textarea
          id={ids.text}
          className="members-paste"
          rows={5}
          value={text}
          placeholder={'ada@example.com\ngrace@example.com'}
          aria-describedby={`${ids.hint}${inputError || add.error ? ` ${ids.error}` : ''}`}
          aria-invalid={Boolean(inputError || add.error) || undefined}
          onChange={(e) => setText(e.target.value)}
        />
        <p id={ids.hint} className="field-hint">
          One per line, or separated by commas; a CSV with an “email” column works too.{' '}
          {addresses.length > 0 && `${numberFormat.format(addresses.length)} addresses found.`}
        </p>
        {(inputError || add.error) && (
          <p id={ids.error} className="field-error">
            {inputError ?? errorMessage(add.error)}
          </p>
        )}
      </div>
      <div className="toolbar">
        <label className="button button-small file-button">
          Read a CSV file…
          <input
            type="file"
            accept=".csv,.txt,text/csv,text/plain"
            className="visually-hidden"
            onChange={(e) => void readFile(e.target.files?.[0])}
          />
        </label>
        <label className="checkbox-row">
          <input type="checkbox" checked={createMissing} onChange={(e) => setCreateMissing(e.target.checked)} /> Create
          contacts for unknown addresses
        </label>
        {createMissing && (
          <label className="checkbox-row">
            <input type="checkbox" checked={subscribed} onChange={(e) => setSubscribed(e.target.checked)} /> New
            contacts are subscribed
          </label>
        )}
        <button type="button" className="button button-primary" disabled={add.isPending} onClick={() => void submit()}>
          {add.isPending ? 'Adding…' : 'Add to segment'}
        </button>
      </div>
      <div aria-live="polite" data-testid="members-result">
        {result && (
          <p>
            {changeWords({ added: result.added, removed: 0, total: result.total })}
            {result.created > 0 && ` · ${numberFormat.format(result.created)} contacts created`}
            {result.alreadyMembers > 0 && ` · ${numberFormat.format(result.alreadyMembers)} already members`}
          </p>
        )}
        {result && result.notFound.length > 0 && (
          <p className="notice">
            Not added, no contact has these addresses: {result.notFound.join(', ')}. Tick “Create contacts” to add them.
          </p>
        )}
        {removed && <p>{removed}</p>}
      </div>

      <h2>Members</h2>
      <QueryView
        query={members}
        loading={<TableSkeleton label="Loading members…" columns={COLUMNS} rows={3} />}
        isEmpty={(found) => found.total === 0}
        empty={
          <EmptyState title="No members yet">
            <p className="muted">Paste addresses above to add contacts to this segment.</p>
          </EmptyState>
        }
      >
        {(found) => (
          <>
            <div className="table-scroll">
              <table className={members.isPlaceholderData ? 'table is-stale' : 'table'}>
                <caption className="visually-hidden">Members of {segment.name}</caption>
                <TableHead columns={COLUMNS} actions="Actions" />
                <tbody>
                  {found.data.map((c) => (
                    <tr key={c.id}>
                      <td className="cell-email">
                        <Link to={`/contacts/${c.id}`}>{c.email}</Link>
                      </td>
                      <td>{c.subscribed ? 'Yes' : 'No'}</td>
                      <td>
                        <button
                          type="button"
                          className="button button-small"
                          aria-label={`Remove ${c.email}`}
                          disabled={remove.isPending}
                          onClick={() =>
                            remove.mutate([c.email], {
                              onSuccess: (r) => {
                                setResult(null);
                                setRemoved(changeWords({ added: 0, removed: r.removed, total: r.memberCount }));
                              },
                            })
                          }
                        >
                          Remove
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {remove.error && <p className="field-error">{errorMessage(remove.error)}</p>}
            <OffsetPager
              label="Pages of members"
              page={page}
              totalPages={found.totalPages}
              busy={members.isPlaceholderData}
              onPage={setPage}
            />
          </>
        )}
      </QueryView>
    </section>
  );
}
