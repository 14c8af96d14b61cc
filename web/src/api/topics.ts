import { useQuery } from '@tanstack/react-query';
import type { Topic } from '../../../src/api.js';
import { api } from './client.js';
import type { CursorPage } from './contacts.js';

export const topicsKey = (projectId: string) => ['topics', projectId] as const;

/** Every topic of the project with its subscriber count (a project has a handful: one page of 100). */
export function useTopicList(projectId: string) {
  return useQuery({
    queryKey: [...topicsKey(projectId), 'all'],
    queryFn: async ({ signal }) =>
      (await api<CursorPage<Topic>>('GET', '/topics', { projectId, signal, query: { limit: 100 } })).data,
  });
}
