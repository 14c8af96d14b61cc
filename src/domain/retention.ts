/**
 * What the retention of events removes, from each project's retention in days (null: the
 * instance's default; a default of undefined keeps events for ever). Whole partitions go when every
 * project lets them go: `dropBefore` is then the cutoff of the longest retention. Each project with
 * a retention also has its own cutoff, before which its events are deleted in small batches
 * wherever a partition still holds rows of projects that keep them longer.
 */
export interface RetentionPlan {
  dropBefore?: Date;
  deletes: { projectId: string; before: Date }[];
}

const DAY_MS = 86_400_000;

export function retentionPlan(
  projects: { id: string; days: number | null }[],
  defaultDays: number | undefined,
  now: Date,
): RetentionPlan {
  const cutoff = (days: number) => new Date(now.getTime() - days * DAY_MS);
  const effective = projects.map((p) => ({ projectId: p.id, days: p.days ?? defaultDays }));
  const deletes = effective.flatMap((p) =>
    p.days === undefined ? [] : [{ projectId: p.projectId, before: cutoff(p.days) }],
  );
  if (effective.length === 0 || deletes.length < effective.length) return { deletes };
  const longest = Math.max(...effective.map((p) => p.days!));
  return { dropBefore: cutoff(longest), deletes };
}
