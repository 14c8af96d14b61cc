import type { UseQueryResult } from '@tanstack/react-query';
import { type ReactNode, useId } from 'react';
import { isApiError } from '../api/client.js';
import { RetryAlert } from './Alert.js';
import { BackLink } from './BackLink.js';
import { EmptyState } from './EmptyState.js';

interface RecordPageProps<T> {
  query: UseQueryResult<T>;
  /** The list the record belongs to, linked above whatever the page shows. */
  back: { to: string; label: string };
  /** The id of the record's heading, which names the page. */
  labelledBy: string;
  className?: string;
  /** The page's heading when the record failed to load for another reason than being missing. */
  title: string;
  missing: {
    /** The page's heading: "Contact not found". */
    heading: string;
    /** "No such contact in this project". */
    title: string;
    /** Why it may be missing. */
    hint: string;
  };
  /**
   * The answers that mean the record is not there: one of another project is a 404 like a deleted
   * one, so nothing leaks; a malformed id is a 422 (or 400).
   */
  missingStatuses?: readonly number[];
  children: (record: T) => ReactNode;
}

/** A page about one record: the record once loaded, or why it cannot be shown, under a link back to its list. */
export function RecordPage<T>({
  query,
  back,
  labelledBy,
  className = '',
  title,
  missing,
  missingStatuses = [404, 422],
  children,
}: RecordPageProps<T>) {
  const missingId = useId();
  const backLink = <BackLink to={back.to}>{back.label}</BackLink>;
  if (query.isPending) {
    return (
      <section className="stack" aria-busy="true">
        {backLink}
        <p>Loading…</p>
      </section>
    );
  }
  if (query.isError) {
    const isMissing = missingStatuses.some((status) => isApiError(query.error, status));
    return (
      <section className="stack" aria-labelledby={missingId}>
        {backLink}
        <h1 id={missingId}>{isMissing ? missing.heading : title}</h1>
        {isMissing ? (
          <EmptyState title={missing.title}>
            <p className="muted">{missing.hint}</p>
          </EmptyState>
        ) : (
          <RetryAlert error={query.error} onRetry={() => query.refetch()} />
        )}
      </section>
    );
  }
  return (
    <section className={`stack ${className}`.trim()} aria-labelledby={labelledBy}>
      {backLink}
      {children(query.data)}
    </section>
  );
}
