import { useState } from 'react';
import type { FilterCondition } from '../../../../src/api.js';
import { FilterBuilder } from '../../components/filter-builder/FilterBuilder.js';
import type { ExtraFields } from '../../components/filter-builder/field-choices.js';
import { pruneEmpty } from '../../components/filter-builder/filter-tree.js';
import { valueTypeOf } from '../../components/filter-builder/operator-words.js';
import { useCurrentProject } from '../../shell/current-project.js';
import { useWorkflowFields } from './workflows-api.js';

export { emptyCondition } from '../../components/filter-builder/filter-tree.js';

const PREFIX = 'config.condition.';
const CONTEXT_DATA = 'context.event.data.';

/**
 * The condition of a CONDITION step, built with the segment builder. The builder keeps the tree as
 * edited (a group just added, a filter without its field yet); the step's config gets it without
 * the empty groups, which under OR would let every contact through.
 */
export function ConditionEditor({
  value,
  onChange,
  errors,
  triggerEvent,
}: {
  /** The workflow's trigger event, whose data the picker offers as `context.event.data.<key>`. */
  triggerEvent: string | null;
  value: FilterCondition;
  onChange(next: FilterCondition): void;
  /** The server's field errors of the step, by field (`config.condition.groups.0.filters.0.value`). */
  errors: Record<string, string>;
}) {
  const [tree, setTree] = useState(value);
  const project = useCurrentProject();
  const fields = useWorkflowFields(project.id, triggerEvent);
  const context = fields.data?.context ?? [];
  const extraFields: ExtraFields | undefined =
    triggerEvent && context.length > 0
      ? {
          label: `Data of “${triggerEvent}”`,
          fields: context.map((f) => ({
            field: f.field,
            // Named with its event: the contact's own data may have a key of the same name.
            label: `${triggerEvent}: ${f.field.slice(CONTEXT_DATA.length)}`,
            type: valueTypeOf(f.type),
          })),
        }
      : undefined;
  const treeErrors = Object.fromEntries(
    Object.entries(errors)
      .filter(([field]) => field.startsWith(PREFIX))
      .map(([field, message]) => [field.slice(PREFIX.length), message]),
  );
  return (
    <FilterBuilder
      label="Condition"
      value={tree}
      errors={treeErrors}
      extraFields={extraFields}
      onChange={(next) => {
        setTree(next);
        onChange(pruneEmpty(next));
      }}
    />
  );
}
