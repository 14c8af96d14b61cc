import { useQuery } from '@tanstack/react-query';
import type { Segment } from '../../../src/api.js';
import { api } from './client.js';

export const segmentsKey = (projectId: string) => ['segments', projectId] as const;

/** Every segment of the project with its cached member count (`GET /segments` is not paged). */
export function useSegmentList(projectId: string) {
  return useQuery({
    queryKey: segmentsKey(projectId),
    queryFn: ({ signal }) => api<Segment[]>('GET', '/segments', { projectId, signal }),
  });
}
