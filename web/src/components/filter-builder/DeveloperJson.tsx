import type { FilterCondition } from '../../../../src/domain/filters/schema.js';
import { CopyButton } from '../CopyButton.js';
import { pruneEmpty } from './filter-tree.js';

/** The tree as the API takes it, to copy into a request: a disclosure for developers, closed at first. */
export function DeveloperJson({ condition }: { condition: FilterCondition }) {
  const json = JSON.stringify(pruneEmpty(condition), null, 2);
  return (
    <details className="developer-json">
      <summary>Developer: the condition as JSON</summary>
      <div className="developer-json-body">
        <CopyButton value={json} label="Copy JSON" />
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region (a long tree) must be reachable by keyboard */}
        <section className="developer-json-code" aria-label="The condition as JSON" tabIndex={0}>
          <pre>{json}</pre>
        </section>
      </div>
    </details>
  );
}
