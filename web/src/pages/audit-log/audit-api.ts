import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { AuditPage } from '../../../../src/api.js';
import { api } from '../../api/client.js';

/** One page of the audit log, newest first, narrowed by the server. */
export function useAuditPage(projectId: string, query: Record<string, string | number>) {
  return useQuery({
    queryKey: ['audit-log', projectId, query],
    queryFn: ({ signal }) => api<AuditPage>('GET', '/audit-log', { projectId, signal, query }),
    placeholderData: keepPreviousData,
  });
}
