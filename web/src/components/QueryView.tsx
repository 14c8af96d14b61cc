import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { errorMessage } from '../api/errors.js';
import { Alert, RetryAlert } from './Alert.js';

interface QueryViewProps<T> {
  query: UseQueryResult<T>;
  /** Shown until the first answer arrives. */
  loading: ReactNode;
  /** With `empty`: an answer with nothing in it shows `empty` instead of the content. */
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  /** The size of the "Try again" button: small inside cards; `none` where trying again is left to the page. */
  retry?: 'normal' | 'small' | 'none';
  children: (data: T) => ReactNode;
}

/** What one query has to show: that it is loading, why it failed, that it found nothing, or what it found. */
export function QueryView<T>({ query, loading, isEmpty, empty, retry = 'normal', children }: QueryViewProps<T>) {
  if (query.isPending) return <>{loading}</>;
  if (query.isError) {
    if (retry === 'none') return <Alert>{errorMessage(query.error)}</Alert>;
    return <RetryAlert error={query.error} onRetry={() => query.refetch()} small={retry === 'small'} />;
  }
  if (isEmpty?.(query.data)) return <>{empty}</>;
  return <>{children(query.data)}</>;
}
