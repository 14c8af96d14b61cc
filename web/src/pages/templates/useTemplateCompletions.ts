import { useMemo } from 'react';
import { useContactFields } from '../../api/contacts.js';
import type { TemplateVariables } from './CodeEditor.js';
import { dataFieldNames, SERVICE_VARIABLES } from './template-form.js';

/** What Ctrl+Space offers in a body: the project's contact fields and the service's own variables. */
export function useTemplateCompletions(projectId: string): TemplateVariables {
  const fields = useContactFields(projectId);
  return useMemo<TemplateVariables>(() => {
    const names = dataFieldNames(fields.data?.fields ?? []);
    return {
      variables: [
        ...names.filter((n) => n.identifier).map((n) => ({ label: n.key, type: 'variable', detail: n.type })),
        ...SERVICE_VARIABLES.map((v) => ({ label: v.name, type: 'constant', detail: v.detail })),
        { label: 'data', type: 'namespace', detail: 'all fields' },
      ],
      dataKeys: names.map((n) => ({ label: n.key, type: 'property', detail: n.type })),
    };
  }, [fields.data]);
}
