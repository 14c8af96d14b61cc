import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Project } from '../../../src/api.js';
import { api } from './client.js';

export type ProjectWithKeys = Project & { publicKey: string; secretKey: string };

const projectsKey = ['projects'] as const;

export function useProjects() {
  return useQuery({
    queryKey: projectsKey,
    queryFn: ({ signal }) => api<Project[]>('GET', '/users/@me/projects', { signal }),
  });
}

export function useCreateProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api<ProjectWithKeys>('POST', '/users/@me/projects', { body: { name } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: projectsKey }),
  });
}

const STORAGE_KEY = 'postbox.projectId';

/** The project chosen last time on this browser, if the user still has it. */
export function rememberedProject(projects: readonly Project[]): Project | undefined {
  let saved: string | null = null;
  try {
    saved = localStorage.getItem(STORAGE_KEY);
  } catch {
    // Storage can be blocked (private mode, policies); the first project is then a fine default.
  }
  return projects.find((p) => p.id === saved) ?? projects[0];
}

export function rememberProject(id: string): void {
  try {
    localStorage.setItem(STORAGE_KEY, id);
  } catch {
    // See rememberedProject.
  }
}
