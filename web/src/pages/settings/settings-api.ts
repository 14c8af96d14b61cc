import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Project } from '../../../../src/api.js';
import { api } from '../../api/client.js';
import type { ProjectWithKeys } from '../../api/projects.js';

const projectsKey = ['projects'] as const;
const path = (id: string) => `/users/@me/projects/${encodeURIComponent(id)}`;

/** The project as the answer says it is now, in the shell's list at once (its switcher and pages follow). */
function useProjectChange<V, R extends Project>(request: (v: V) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: request,
    onSuccess: (changed) => {
      const { id, name, disabled, requireTwoFactor, timezone, updatedAt } = changed;
      queryClient.setQueryData<Project[]>(projectsKey, (list) =>
        list?.map((p) => (p.id === id ? { ...p, name, disabled, requireTwoFactor, timezone, updatedAt } : p)),
      );
      return queryClient.invalidateQueries({ queryKey: projectsKey });
    },
  });
}

export const useUpdateProject = (projectId: string) =>
  useProjectChange((body: { name?: string; timezone?: string; disabled?: boolean; requireTwoFactor?: boolean }) =>
    api<Project>('PATCH', path(projectId), { body }),
  );

/** Both keys at once; the answer holds them, the only time they can be read. */
export const useRegenerateKeys = (projectId: string) =>
  useProjectChange(() => api<ProjectWithKeys>('POST', `${path(projectId)}/regenerate-keys`));
