import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { Campaign, Contact, Template } from '../../../../src/api.js';
import { api } from '../../api/client.js';
import type { PaletteItem } from './palette-items.js';

interface Found {
  contacts: { data: Contact[] };
  templates: { data: Template[] };
  campaigns: { data: Campaign[] };
}

/** Contacts by email, templates and campaigns by name: five of each, asked of the server at once. */
export function usePaletteSearch(projectId: string, term: string | null) {
  return useQuery({
    queryKey: ['palette', projectId, term],
    enabled: term !== null,
    placeholderData: keepPreviousData,
    staleTime: 30_000,
    queryFn: async ({ signal }): Promise<PaletteItem[]> => {
      const options = { projectId, signal };
      const [contacts, templates, campaigns] = await Promise.all([
        api<Found['contacts']>('GET', '/contacts', { ...options, query: { search: term, limit: 5 } }),
        api<Found['templates']>('GET', '/templates', { ...options, query: { search: term, pageSize: 5 } }),
        api<Found['campaigns']>('GET', '/campaigns', { ...options, query: { search: term, pageSize: 5 } }),
      ]);
      return [
        ...contacts.data.map(
          (c): PaletteItem => ({ id: c.id, group: 'Contacts', label: c.email, to: `/contacts/${c.id}` }),
        ),
        ...templates.data.map(
          (t): PaletteItem => ({
            id: t.id,
            group: 'Templates',
            label: t.name,
            to: `/templates/${t.id}`,
            hint: t.subject,
          }),
        ),
        ...campaigns.data.map(
          (c): PaletteItem => ({
            id: c.id,
            group: 'Campaigns',
            label: c.name,
            to: `/campaigns/${c.id}`,
            hint: c.status.toLowerCase(),
          }),
        ),
      ];
    },
  });
}
