import { z } from 'zod';
import type { Executor } from './db/client.js';

export type UsageKind = 'segments' | 'campaigns' | 'workflows';
export interface UsageItem {
  id: string;
  name: string;
}
/**
 * What can be referenced: a contact field or event name (by name), a template (by id), or a segment
 * (by id) as the audience of a campaign that is scheduled or sending.
 */
export type UsageSubject = 'field' | 'event' | 'template' | 'active-segment';
type Finder = (ex: Executor, projectId: string, name: string) => Promise<UsageItem[]>;

/**
 * Answers "what references this field / event name / template / segment?". Each module that stores
 * references (segments, campaigns, workflows) registers a finder; the modules that own what is
 * referenced ask, without depending on the modules that reference it.
 */
export class UsageRegistry {
  private finders: Record<UsageSubject, Map<UsageKind, Finder>> = {
    field: new Map(),
    event: new Map(),
    template: new Map(),
    'active-segment': new Map(),
  };

  register(subject: UsageSubject, kind: UsageKind, finder: Finder): void {
    this.finders[subject].set(kind, finder);
  }

  async find(
    ex: Executor,
    subject: UsageSubject,
    projectId: string,
    name: string,
  ): Promise<Record<UsageKind, UsageItem[]>> {
    const result: Record<UsageKind, UsageItem[]> = { segments: [], campaigns: [], workflows: [] };
    for (const [kind, finder] of this.finders[subject]) result[kind] = await finder(ex, projectId, name);
    return result;
  }
}

const usageItems = z.array(z.object({ id: z.string(), name: z.string() }));
/** What the usage endpoints answer, besides the name asked about. */
export const usageListsSchema = z.object({ segments: usageItems, campaigns: usageItems, workflows: usageItems });
