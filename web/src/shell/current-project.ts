import { createContext, useContext } from 'react';
import type { Project } from '../../../src/api.js';

export const CurrentProjectContext = createContext<Project | null>(null);

/** The project the pages act on; every resource request carries its id. */
export function useCurrentProject(): Project {
  const project = useContext(CurrentProjectContext);
  if (!project) throw new Error('useCurrentProject is used outside a chosen project');
  return project;
}
