/** The settings page's rules: what a project name may be, and what each change asks the API. */
import type { Project } from '../../../../src/api.js';
import { roleAtLeast } from '../../../../src/domain/roles.js';

export const MAX_NAME = 255;

/** What is wrong with a new name, or null (the server trims it and takes 1 to 255 characters). */
export function projectNameProblem(draft: string): string | null {
  const name = draft.trim();
  if (!name) return 'Enter a name.';
  if (name.length > MAX_NAME) return `At most ${MAX_NAME} characters.`;
  return null;
}

/** The PATCH body of what the form changes (its name, its default time zone), or null for nothing. */
export function generalBody(
  project: Pick<Project, 'name' | 'timezone'>,
  draft: { name: string; timezone: string },
): { name?: string; timezone?: string } | null {
  const name = draft.name.trim();
  const body = {
    ...(name === project.name ? {} : { name }),
    ...(draft.timezone === project.timezone ? {} : { timezone: draft.timezone }),
  };
  return Object.keys(body).length > 0 ? body : null;
}

/** The words of the enable/disable control and its confirmation, for the project as it is now. */
export function disableCopy(project: Pick<Project, 'name' | 'disabled'>) {
  return project.disabled
    ? {
        state: 'Disabled',
        explain:
          'The API refuses requests with this project’s keys (403), and this dashboard’s pages for it show the same, until it is enabled again.',
        action: 'Enable project',
        title: `Enable ${project.name}?`,
        confirm: 'Its keys work again at once: mail can be sent and events tracked.',
        body: { disabled: false },
      }
    : {
        state: 'Enabled',
        explain: 'Its keys work: the API sends mail and tracks events for it.',
        action: 'Disable project',
        title: `Disable ${project.name}?`,
        confirm:
          'Every request with this project’s keys is refused at once (403): sending, tracking, contacts and the rest, from your servers and apps and from this dashboard. Nothing is deleted; enable it again here.',
        body: { disabled: true },
      };
}

/** What the signed-in user's role lets them change here (the server checks it again). */
export function settingsAllowed(project: Pick<Project, 'role'>) {
  return {
    rename: roleAtLeast(project.role, 'admin'),
    tracking: roleAtLeast(project.role, 'admin'),
    keys: roleAtLeast(project.role, 'owner'),
    status: roleAtLeast(project.role, 'owner'),
  };
}
