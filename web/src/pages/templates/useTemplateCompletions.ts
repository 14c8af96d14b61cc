import { useMemo } from 'react';
import { useContactFields } from '../../api/contacts.js';
import type { TemplateVariables } from './CodeEditor.js';
import { type DataFieldName, dataFieldNames, SERVICE_VARIABLES } from './template-form.js';

/**
 * The project's contact fields (the block editor inserts them) and what Ctrl+Space offers in a body:
 * those fields and the service's own variables.
 */
export function useTemplateCompletions(projectId: string): {
  dataFields: DataFieldName[];
  completions: TemplateVariables;
} {
  const fields = useContactFields(projectId);
  return useMemo(() => {
    const names = dataFieldNames(fields.data?.fields ?? []);
    const completions: TemplateVariables = {
      variables: [
        ...names.filter((n) => n.identifier).map((n) => ({ label: n.key, type: 'variable', detail: n.type })),
        ...SERVICE_VARIABLES.map((v) => ({ label: v.name, type: 'constant', detail: v.detail })),
        { label: 'data', type: 'namespace', detail: 'all fields' },
      ],
      dataKeys: names.map((n) => ({ label: n.key, type: 'property', detail: n.type })),
    };
    return { dataFields: names, completions };
  }, [fields.data]);
}
