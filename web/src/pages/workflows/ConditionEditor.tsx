import { useState } from 'react';
import type { FilterCondition } from '../../../../src/api.js';
import { FilterBuilder } from '../../components/filter-builder/FilterBuilder.js';
import { pruneEmpty } from '../../components/filter-builder/filter-tree.js';

export { emptyCondition } from '../../components/filter-builder/filter-tree.js';

const PREFIX = 'config.condition.';

/**
 * The condition of a CONDITION step, built with the segment builder. The builder keeps the tree as
 * edited (a group just added, a filter without its field yet); the step's config gets it without
 * the empty groups, which under OR would let every contact through.
 */
export function ConditionEditor({
  value,
  onChange,
  errors,
}: {
  value: FilterCondition;
  onChange(next: FilterCondition): void;
  /** The server's field errors of the step, by field (`config.condition.groups.0.filters.0.value`). */
  errors: Record<string, string>;
}) {
  const [tree, setTree] = useState(value);
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
      onChange={(next) => {
        setTree(next);
        onChange(pruneEmpty(next));
      }}
    />
  );
}
