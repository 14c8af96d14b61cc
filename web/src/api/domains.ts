import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DmarcSummary, Domain, DomainHealth } from '../../../src/api.js';
import { api } from './client.js';

const domainsKey = (projectId: string) => ['domains', projectId] as const;

export function useDomains(projectId: string) {
  return useQuery({
    queryKey: domainsKey(projectId),
    queryFn: ({ signal }) =>
      api<Domain[]>('GET', `/domains/project/${encodeURIComponent(projectId)}`, { projectId, signal }),
  });
}

export function useAddDomain(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (domain: string) => api<Domain>('POST', '/domains', { projectId, body: { domain } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: domainsKey(projectId) }),
  });
}

export function useVerifyDomain(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<Domain>('GET', `/domains/${encodeURIComponent(id)}/verify`, { projectId }),
    onSuccess: (checked) => {
      queryClient.setQueryData<Domain[]>(domainsKey(projectId), (list) =>
        list?.map((d) => (d.id === checked.id ? checked : d)),
      );
      // The checklist reads the records as last checked.
      return queryClient.invalidateQueries({ queryKey: healthKey(projectId, checked.id) });
    },
  });
}

export function useDeleteDomain(projectId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>('DELETE', `/domains/${encodeURIComponent(id)}`, { projectId }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: domainsKey(projectId) }),
  });
}

/** What the DMARC aggregate reports received for a domain say over the last 30 days. */
export function useDmarcSummary(projectId: string, domainId: string) {
  return useQuery({
    queryKey: ['domains', projectId, domainId, 'dmarc'] as const,
    queryFn: ({ signal }) =>
      api<DmarcSummary>('GET', `/domains/${encodeURIComponent(domainId)}/dmarc`, { projectId, signal }),
  });
}

const healthKey = (projectId: string, domainId: string) => ['domains', projectId, domainId, 'health'] as const;

/** Whether the domain meets Gmail's and Yahoo's bulk-sender rules. */
export function useDomainHealth(projectId: string, domainId: string) {
  return useQuery({
    queryKey: healthKey(projectId, domainId),
    queryFn: ({ signal }) =>
      api<DomainHealth>('GET', `/domains/${encodeURIComponent(domainId)}/health`, { projectId, signal }),
  });
}
