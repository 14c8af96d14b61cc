import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { Contact } from '../../../src/api.js';
import { api } from './client.js';

export interface CursorPage<T> {
  data: T[];
  cursor: string | null;
  hasMore: boolean;
  /** Counted on the first page only; later pages answer 0. */
  total: number;
}

export interface ContactsQuery {
  search?: string;
  subscribed?: boolean;
  cursor?: string;
  limit: number;
}

/** One page of contacts, searched and filtered by the server: never the whole list. */
export function useContactsPage(projectId: string, query: ContactsQuery) {
  return useQuery({
    queryKey: ['contacts', projectId, query],
    queryFn: ({ signal }) =>
      api<CursorPage<Contact>>('GET', '/contacts', {
        projectId,
        signal,
        query: { limit: query.limit, search: query.search, subscribed: query.subscribed, cursor: query.cursor },
      }),
    placeholderData: keepPreviousData,
  });
}
