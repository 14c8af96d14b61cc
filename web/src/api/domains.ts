import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DmarcSummary, Domain } from '../../../src/api.js';
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
    onSuccess: (checked) =>
      queryClient.setQueryData<Domain[]>(domainsKey(projectId), (list) =>
        list?.map((d) => (d.id === checked.id ? checked : d)),
      ),
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
